//! A small cargo application for orderfile to order. Its launch initializes every
//! feature the first screen needs; handlers named on the command line ("sync.sync")
//! run after it, as the commands of a real application would. Build flags: README.md.
use std::collections::BTreeMap;
use std::process::exit;

mod handlers;

/// What the handlers work on: the state a launch builds up.
pub struct Context {
    pub words: Vec<String>,
    pub table: BTreeMap<String, u64>,
    pub numbers: Vec<u64>,
    pub total: u64,
}

fn main() {
    let mut context = Context {
        words: vec![String::from("rustapp"), String::from("launch")],
        table: BTreeMap::new(),
        numbers: Vec::new(),
        total: 0,
    };
    for (_, handler) in handlers::LAUNCH_HANDLERS {
        handler(&mut context);
    }
    println!(
        "rustapp: {} launch handlers, {} words, {} entries",
        handlers::LAUNCH_HANDLERS.len(),
        context.words.len(),
        context.table.len()
    );
    println!("checksum {:x}", context.total);
    for name in std::env::args().skip(1) {
        match handlers::ALL_HANDLERS.iter().find(|(handler_name, _)| *handler_name == name) {
            Some((_, handler)) => {
                handler(&mut context);
                println!("{}: checksum {:x}", name, context.total);
            }
            None => {
                println!("rustapp: no handler named '{}'", name);
                exit(64);
            }
        }
    }
}
