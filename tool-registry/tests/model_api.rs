//! `ModelApi` as a name and a door: its text form reads back, MCP has no calls to read or
//! answer, and an Anthropic message whose `tool_use` cannot be answered names the block and
//! the field.

use serde_json::json;
use tool_registry::providers::ModelApi;
use tool_sdk::ToolResultBlock;

#[test]
fn every_api_reads_back_from_its_own_name_and_mcp_has_no_calls() {
    for api in ModelApi::ALL {
        assert_eq!(api.to_string().parse::<ModelApi>(), Ok(api));
    }
    let error = "openai".parse::<ModelApi>().unwrap_err();
    assert!(
        error.contains("openai-chat, openai-responses, gemini, gemini-openapi or mcp"),
        "{error}"
    );
    let message =
        json!({"content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}]});
    let read = ModelApi::Mcp.read_calls(&message, &[]).unwrap_err();
    assert!(read.to_string().contains("`tools/call`"), "{read}");
    let calls = ModelApi::Anthropic.read_calls(&message, &[]).unwrap();
    let results = vec![ToolResultBlock::success("toolu_1", "ok")];
    let written = ModelApi::Mcp
        .write_results(&calls, results, &[])
        .unwrap_err();
    assert!(written.to_string().contains("`tools/call`"), "{written}");
}

#[test]
fn an_anthropic_tool_use_without_its_id_or_name_is_named() {
    let without_id = json!({"content": [
        {"type": "text", "text": "Reading."},
        {"type": "tool_use", "name": "Read", "input": {}}
    ]});
    let error = ModelApi::Anthropic
        .read_calls(&without_id, &[])
        .unwrap_err();
    assert_eq!(error.to_string(), "content[1] has no string `id`");
    let without_name = json!([{"type": "tool_use", "id": "toolu_1", "input": {}}]);
    let error = ModelApi::Anthropic
        .read_calls(&without_name, &[])
        .unwrap_err();
    assert_eq!(error.to_string(), "content[0] has no string `name`");
    let error = ModelApi::Anthropic
        .read_calls(&json!({"role": "assistant"}), &[])
        .unwrap_err();
    assert!(error.to_string().contains("content"), "{error}");
}
