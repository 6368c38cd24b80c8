#![allow(dead_code)]
//! Helpers: documents written to a temp dir, commands run on the native engine.

use policy_tools::commands::Args;
use policy_tools::native::NativeEngine;

pub fn root() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../..").to_string()
}

pub fn temp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("policy-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

pub type Command = fn(&mut dyn policy_tools::DecisionSource, &Args, &mut dyn std::io::Write) -> Result<u8, String>;

pub fn run(cmd: Command, args: &[&str]) -> (u8, String) {
    let args = Args::parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
    let mut out = Vec::new();
    let code = cmd(&mut NativeEngine, &args, &mut out).unwrap();
    (code, String::from_utf8(out).unwrap())
}

/// A one-class JSON document with the given class body.
pub fn one_class(body: &str) -> String {
    format!(r#"{{"classes":{{"c":{body}}}}}"#)
}
