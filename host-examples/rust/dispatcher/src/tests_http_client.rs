use super::*;

#[test]
fn only_http_and_https_urls_with_a_host_are_sent() {
    assert_eq!(check_url("http://127.0.0.1:8080/a?b=1"), Ok(()));
    assert_eq!(check_url("HTTP://example.test"), Ok(()));
    assert_eq!(check_url("https://example.test/"), Ok(()));
    assert_eq!(check_url("https:///path"), Err("invalid_url"));
    assert_eq!(check_url("ftp://example.test/"), Err("unsupported_protocol"));
    assert_eq!(check_url("not a url"), Err("invalid_url"));
    assert_eq!(check_url("http:///path"), Err("invalid_url"));
    assert_eq!(check_url("http://user@host/"), Err("invalid_url"));
    assert_eq!(check_url("http://host/\r\nX: y"), Err("invalid_url"));
}

#[test]
fn header_values_with_line_breaks_are_not_valid() {
    assert!(is_header_value("evt-1 \t ok"));
    assert!(!is_header_value("evt\r\nX-Injected: 1"));
    assert!(!is_header_value("é"));
}

#[test]
fn io_errors_map_to_retryable_contract_kinds() {
    assert_eq!(io_kind(&io::ErrorKind::ConnectionReset.into()), "remote_protocol_error");
    assert_eq!(io_kind(&io::ErrorKind::ConnectionRefused.into()), "connect_error");
    assert_eq!(io_kind(&io::ErrorKind::TimedOut.into()), "read_timeout");
    assert_eq!(error_kind(&ureq::Error::Timeout(Timeout::Global)), "read_timeout");
    assert_eq!(error_kind(&ureq::Error::Timeout(Timeout::Connect)), "connect_timeout");
    assert_eq!(error_kind(&ureq::Error::LargeResponseHeader(70_000, 16_384)), "remote_protocol_error");
}
