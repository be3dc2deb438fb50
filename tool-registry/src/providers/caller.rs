//! The `caller` of a call, read in each model API's own shape (programmatic tool calling:
//! `tool_sdk::callers`).

use serde_json::Value;
use tool_sdk::callers::Caller;

/// The API whose `caller` shape [`read_caller`] reads: each API's own, never the other's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CallerShape {
    /// Anthropic Messages: `{"type":"direct"}` or
    /// `{"type":"code_execution_<version>","tool_id":"srvtoolu_…"}`.
    Anthropic,
    /// OpenAI Responses: `{"type":"direct"}` or `{"type":"program","caller_id":"…"}`.
    OpenAiResponses,
}

/// Reads a call's `caller` field in the shape of `api`: absent, `null` or
/// `{"type":"direct"}` is [`Caller::Direct`]; for Anthropic,
/// `{"type":"code_execution_<version>","tool_id":"srvtoolu_…"}`, and for OpenAI Responses,
/// `{"type":"program","caller_id":"…"}`, is [`Caller::Program`]; anything else (the other
/// API's shape, another type, a missing id) is [`Caller::Unknown`], which is refused, never
/// dropped.
///
/// Any `code_execution_<version>` is read as code, not only the version our definitions name
/// in `allowed_callers` ([`ModelApi::ANTHROPIC_CODE_EXECUTION`](super::ModelApi::ANTHROPIC_CODE_EXECUTION)):
/// the API itself enforces the `allowed_callers` list we sent (a tool may only be called by
/// the callers it lists), so a call it sends from a code execution version came from a caller
/// the definition allowed; what this host checks afterwards is whether the tool allows calls
/// from code at all (`tool_sdk::callers::Callers`).
///
/// Sources (read 2026-12-03): `anthropic` SDK 2.16.0 `types/tool_use_block.py`
/// (`Caller = DirectCaller | ServerToolCaller | ServerToolCaller20260120`); `openai` SDK 3.60.0
/// `types/responses/response_function_tool_call.py` (`CallerDirect | CallerProgram`).
pub(crate) fn read_caller(api: CallerShape, caller: Option<&Value>) -> Caller {
    let Some(caller) = caller.filter(|value| !value.is_null()) else {
        return Caller::Direct;
    };
    let kind = caller
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let code = match api {
        CallerShape::Anthropic => kind.starts_with("code_execution_"),
        CallerShape::OpenAiResponses => kind == "program",
    };
    let id_key = match api {
        CallerShape::Anthropic => "tool_id",
        CallerShape::OpenAiResponses => "caller_id",
    };
    match caller.get(id_key).and_then(Value::as_str) {
        _ if kind == "direct" => Caller::Direct,
        Some(id) if code => Caller::Program {
            kind: kind.to_owned(),
            id: id.to_owned(),
        },
        _ => Caller::Unknown {
            raw: caller.to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_api_reads_its_own_caller_shape_only() {
        let anthropic = json!({"type": "code_execution_20260120", "tool_id": "srvtoolu_1"});
        let newer = json!({"type": "code_execution_20260521", "tool_id": "srvtoolu_2"});
        let program = json!({"type": "program", "caller_id": "call_1"});
        let direct = json!({"type": "direct"});
        let read = read_caller;
        use CallerShape::{Anthropic, OpenAiResponses};
        assert!(read(Anthropic, Some(&anthropic)).is_programmatic());
        assert!(read(Anthropic, Some(&newer)).is_programmatic());
        assert!(read(OpenAiResponses, Some(&program)).is_programmatic());
        for api in [Anthropic, OpenAiResponses] {
            assert_eq!(read(api, Some(&direct)), Caller::Direct);
            assert_eq!(read(api, None), Caller::Direct);
        }
        assert!(matches!(
            read(Anthropic, Some(&program)),
            Caller::Unknown { .. }
        ));
        assert!(matches!(
            read(OpenAiResponses, Some(&anthropic)),
            Caller::Unknown { .. }
        ));
        let no_id = json!({"type": "code_execution_20260120"});
        assert!(matches!(
            read(Anthropic, Some(&no_id)),
            Caller::Unknown { .. }
        ));
    }
}
