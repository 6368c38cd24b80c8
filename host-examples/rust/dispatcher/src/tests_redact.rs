use super::{log_line, target};

#[test]
fn a_log_line_escapes_control_characters_and_keeps_the_rest() {
    assert_eq!(log_line("event a\r\ndispatcher: forged"), "event a\\r\\ndispatcher: forged");
    assert_eq!(log_line("id \u{1b}[2J é"), "id \\u{1b}[2J é");
    assert_eq!(log_line("plain id 7"), "plain id 7");
}

#[test]
fn userinfo_query_and_fragment_are_dropped_and_the_rest_is_kept() {
    assert_eq!(target("http://user:pw@hooks.test:8080/in?token=s3cret#x"), "http://hooks.test:8080/in");
    assert_eq!(target("http://hooks.test?sig=abc"), "http://hooks.test");
    assert_eq!(target("http://a@b@hooks.test/p"), "http://hooks.test/p");
    assert_eq!(target("http://h/p\r\nX: y"), "http://h/pX: y");
    assert_eq!(target("token=abc"), "<unparsable url>");
}
