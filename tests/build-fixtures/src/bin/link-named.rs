//! Names the tool crate, so its registrations are linked.

use tool_sdk_build_fixtures as _;

fn main() {
    tool_sdk_build_fixtures::print_registered();
}
