//! Programmatic tool calling: who may call a tool ([`Callers`], declared with
//! `#[tool(callers = [...])]`) and who made one call ([`Caller`], read from the model API's
//! call).
//!
//! A *direct* call is one the model makes itself, in its reply. A *programmatic* call is one
//! made by code the model wrote and the provider runs in its own sandbox: Anthropic's code
//! execution tool calling a tool whose definition lists it in `allowed_callers`, or an OpenAI
//! Responses program calling a function whose `allowed_callers` has `"programmatic"`. Both
//! kinds of call are answered by the host in the same way, with a result per call.
//!
//! Sources, read 2026-12-03:
//! - Anthropic: <https://platform.claude.com/docs/en/agents-and-tools/tool-use/programmatic-tool-calling>
//!   and the `anthropic` Python SDK 2.16.0 (`anthropic/types/tool_param.py`:
//!   `allowed_callers: List[Literal["direct", "code_execution_20250825",
//!   "code_execution_20260120", "code_execution_20260521"]]`; `tool_use_block.py`: `caller`
//!   is `{"type":"direct"}` or `{"type":"code_execution_…","tool_id":"srvtoolu_…"}`).
//! - OpenAI Responses: the `openai` Python SDK 3.60.0
//!   (`openai/types/responses/function_tool_param.py`: `allowed_callers:
//!   Optional[List[Literal["direct", "programmatic"]]]`; `response_function_tool_call.py`:
//!   `caller` is `{"type":"direct"}` or `{"type":"program","caller_id":"…"}`).

use std::fmt;

/// Who may call a tool (`#[tool(callers = ["direct", "programmatic"])]`): the model itself,
/// code the model runs in the provider's sandbox, or both.
///
/// The default is [`Callers::Direct`], fail-closed: the tool is not offered to code, and
/// exports write nothing new. Exports write it where the API has a slot: Anthropic's
/// `allowed_callers` (`"direct"`, and the code execution tool version for programmatic),
/// OpenAI Responses' `allowed_callers` (`"direct"`, `"programmatic"`). OpenAI Chat
/// Completions, Gemini (both forms) and MCP have no such slot: their definitions carry
/// nothing, and a tool that allows only programmatic calls ([`Callers::Programmatic`]) is
/// left out of them, since every call could only be refused; a call of it there is answered
/// as a call of a tool that does not exist (an MCP server does not list it and answers a
/// `tools/call` of it as of an unknown tool; an OpenAI Chat or Gemini call of it gets the
/// "No such tool available" error result).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Callers {
    /// Only the model itself (the APIs' default when `allowed_callers` is left out).
    #[default]
    Direct,
    /// Only code the model runs in the provider's sandbox; a direct call is refused.
    Programmatic,
    /// Both the model and its code.
    DirectAndProgrammatic,
}

impl Callers {
    /// The names `#[tool(callers = [...])]` and host configuration accept.
    pub const NAMES: [&'static str; 2] = ["direct", "programmatic"];

    /// `true` when the model itself may call the tool.
    pub const fn allows_direct(self) -> bool {
        matches!(self, Self::Direct | Self::DirectAndProgrammatic)
    }

    /// `true` when code the model runs may call the tool.
    pub const fn allows_programmatic(self) -> bool {
        matches!(self, Self::Programmatic | Self::DirectAndProgrammatic)
    }

    /// `true` when a call made by `caller` may run: a direct call when
    /// [`Callers::allows_direct`], a call from a program when [`Callers::allows_programmatic`],
    /// never a call from a caller this crate does not know.
    pub fn allows(self, caller: &Caller) -> bool {
        match caller {
            Caller::Direct => self.allows_direct(),
            Caller::Program { .. } => self.allows_programmatic(),
            Caller::Unknown { .. } => false,
        }
    }

    /// The provider-neutral names, in [`Callers::NAMES`] order: `["direct"]`,
    /// `["programmatic"]` or `["direct", "programmatic"]`.
    pub const fn names(self) -> &'static [&'static str] {
        match self {
            Self::Direct => &["direct"],
            Self::Programmatic => &["programmatic"],
            Self::DirectAndProgrammatic => &["direct", "programmatic"],
        }
    }

    /// The set named by `names` (each `"direct"` or `"programmatic"`), as host configuration
    /// writes it (a JSON tool definition's `callers`, `tool-host --allow-programmatic`).
    ///
    /// # Errors
    /// A message naming the problem and the fix: an unknown name, a name given twice, or no
    /// name at all.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Self, String> {
        let (mut direct, mut programmatic) = (false, false);
        for name in names {
            let seen = match name {
                "direct" => &mut direct,
                "programmatic" => &mut programmatic,
                other => {
                    // The providers' own names for code: ours is provider-neutral.
                    let hint = if other == "code"
                        || other == "program"
                        || other.starts_with("code_execution")
                    {
                        "; write \"programmatic\": exports name each provider's code runner"
                    } else {
                        ""
                    };
                    return Err(format!(
                        "`{other}` is not a caller: use \"direct\" (the model calls the tool \
                         itself) and/or \"programmatic\" (code the model runs calls it){hint}"
                    ));
                }
            };
            if *seen {
                return Err(format!("caller `{name}` is listed twice; list it once"));
            }
            *seen = true;
        }
        match (direct, programmatic) {
            (true, false) => Ok(Self::Direct),
            (false, true) => Ok(Self::Programmatic),
            (true, true) => Ok(Self::DirectAndProgrammatic),
            (false, false) => Err(
                "no caller is listed: list \"direct\", \"programmatic\" or both; leave the \
                 callers out for a tool only the model calls"
                    .to_owned(),
            ),
        }
    }
}

impl fmt::Display for Callers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.names().join(", "))
    }
}

/// Who made one tool call, as the model API said (its `caller` field); [`Caller::Direct`]
/// when the API said nothing.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub enum Caller {
    /// The model itself (Anthropic and OpenAI `{"type":"direct"}`, or no `caller` field).
    #[default]
    Direct,
    /// Code the model runs: Anthropic `{"type":"code_execution_20250825","tool_id":"srvtoolu_…"}`
    /// (`kind` the code execution tool version, `id` its `server_tool_use` id), OpenAI
    /// Responses `{"type":"program","caller_id":"…"}` (`kind` `program`, `id` the program
    /// item's `call_id`).
    Program {
        /// The `caller.type` as sent.
        kind: String,
        /// The id of the code run that made the call (`tool_id` / `caller_id`).
        id: String,
    },
    /// A `caller` this crate does not know (a new type, or one without its id): the call is
    /// answered with an error result and never run.
    Unknown {
        /// The `caller` value as sent, as compact JSON text.
        raw: String,
    },
}

impl Caller {
    /// `true` for a call made by code ([`Caller::Program`]).
    pub fn is_programmatic(&self) -> bool {
        matches!(self, Self::Program { .. })
    }
}

impl fmt::Display for Caller {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Direct => f.write_str("the model"),
            Self::Program { kind, id } => write!(f, "code ({kind} {id})"),
            Self::Unknown { raw } => write!(f, "an unknown caller {raw}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_mistakes_are_named() {
        for callers in [
            Callers::Direct,
            Callers::Programmatic,
            Callers::DirectAndProgrammatic,
        ] {
            assert_eq!(
                Callers::from_names(callers.names().iter().copied()),
                Ok(callers)
            );
        }
        assert_eq!(
            Callers::from_names(["programmatic", "direct"]),
            Ok(Callers::DirectAndProgrammatic)
        );
        assert!(
            Callers::from_names(["code"])
                .unwrap_err()
                .contains("`code` is not a caller")
        );
        for provider_name in ["code_execution_20260120", "program", "code"] {
            assert!(
                Callers::from_names([provider_name])
                    .unwrap_err()
                    .contains("write \"programmatic\""),
                "{provider_name}"
            );
        }
        assert!(
            !Callers::from_names(["model"])
                .unwrap_err()
                .contains("write \"programmatic\"")
        );
        assert!(
            Callers::from_names(["direct", "direct"])
                .unwrap_err()
                .contains("twice")
        );
        assert!(Callers::from_names([]).unwrap_err().contains("no caller"));
    }

    #[test]
    fn only_allowed_callers_run() {
        let program = Caller::Program {
            kind: "program".into(),
            id: "call_1".into(),
        };
        let unknown = Caller::Unknown {
            raw: "{\"type\":\"x\"}".into(),
        };
        assert!(Callers::Direct.allows(&Caller::Direct));
        assert!(!Callers::Direct.allows(&program));
        assert!(Callers::Programmatic.allows(&program));
        assert!(!Callers::Programmatic.allows(&Caller::Direct));
        assert!(!Callers::DirectAndProgrammatic.allows(&unknown));
    }
}
