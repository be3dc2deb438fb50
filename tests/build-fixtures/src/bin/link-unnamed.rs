//! Never names the tool crate: its registrations are not linked.

fn main() {
    let count = tool_sdk::registration::registrations().count();
    println!("{count}");
}
