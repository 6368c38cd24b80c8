use super::*;

#[test]
fn noscript_is_recognised_and_keeps_the_connection() {
    let e = RedisError::from(redis::RedisError::from((
        redis::ErrorKind::NoScriptError,
        "An error was signalled by the server",
        "No matching script. Please use EVAL.".to_string(),
    )));
    assert!(e.is_noscript(), "{e:?}");
    assert!(!e.breaks_connection());
}

#[test]
fn io_errors_and_timeouts_break_the_connection_and_server_errors_do_not() {
    let timeout = RedisError::from(redis::RedisError::from(std::io::Error::from(std::io::ErrorKind::TimedOut)));
    assert_eq!(timeout, RedisError::Timeout);
    assert!(timeout.breaks_connection());
    let reset = RedisError::from(redis::RedisError::from(std::io::Error::from(std::io::ErrorKind::ConnectionReset)));
    assert!(matches!(reset, RedisError::Io(_)) && reset.breaks_connection(), "{reset:?}");
    let skew = RedisError::from(redis::RedisError::from((
        redis::ErrorKind::ResponseError,
        "An error was signalled by the server",
        "budget.lua: clock skew".to_string(),
    )));
    assert!(matches!(skew, RedisError::Server(_)) && !skew.breaks_connection(), "{skew:?}");
}

#[test]
fn messages_are_one_clipped_line() {
    let e = RedisError::Server(format!("ERR a\r\nforged line{}", "x".repeat(500)));
    let text = e.to_string();
    assert!(!text.contains('\n') && !text.contains('\r') && text.len() < 240, "{text}");
}
