use super::log_line;

#[test]
fn a_log_line_escapes_control_characters_and_keeps_the_rest() {
    assert_eq!(log_line("event a\r\ndispatcher: forged"), "event a\\r\\ndispatcher: forged");
    assert_eq!(log_line("id \u{1b}[2J é"), "id \\u{1b}[2J é");
    assert_eq!(log_line("plain id 7"), "plain id 7");
}
