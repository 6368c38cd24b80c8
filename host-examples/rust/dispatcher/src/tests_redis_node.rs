use super::*;

#[test]
fn io_failures_become_errors_the_cluster_client_does_not_retry() {
    let timeout = final_error(std::io::Error::from(std::io::ErrorKind::TimedOut).into());
    assert!(matches!(timeout.retry_method(), redis::RetryMethod::NoRetry), "{timeout}");
    assert!(timeout.to_string().contains(NOT_RETRIED) && timeout.to_string().contains(TIMED_OUT));
    let reset = final_error(std::io::Error::from(std::io::ErrorKind::ConnectionReset).into());
    assert!(matches!(reset.retry_method(), redis::RetryMethod::NoRetry), "{reset}");
}

#[test]
fn redirects_stay_redirects_for_the_crate_to_follow() {
    let moved = redis::RedisError::from((
        ErrorKind::Moved,
        "An error was signalled by the server",
        "3999 127.0.0.1:6381".to_string(),
    ));
    assert!(matches!(final_error(moved).retry_method(), redis::RetryMethod::MovedRedirect));
    let ask =
        redis::RedisError::from((ErrorKind::Ask, "An error was signalled by the server", "3999 127.0.0.1:6381".into()));
    assert!(matches!(final_error(ask).retry_method(), redis::RetryMethod::AskRedirect));
}
