//! The same 100 tools twice: as tool-sdk `#[tool]`s served by `McpServer`, and as rmcp 3.11
//! `#[tool_router]` methods with `#[tool_handler]`, as rmcp's README shows. Every tool takes
//! `{a: String, b: Option<u32>, c: bool}` (a distinct type per tool, so neither side's
//! per-type schema cache is shared between tools) and joins its fields into a string.

/// Calls `$callback!` with the 100 `(method name, tool name, input type)` triples.
macro_rules! with_tools {
    ($callback:ident) => {
        $callback! {
            (tool_0 "tool_0" Tool0) (tool_1 "tool_1" Tool1) (tool_2 "tool_2" Tool2) (tool_3 "tool_3" Tool3)
            (tool_4 "tool_4" Tool4) (tool_5 "tool_5" Tool5) (tool_6 "tool_6" Tool6) (tool_7 "tool_7" Tool7)
            (tool_8 "tool_8" Tool8) (tool_9 "tool_9" Tool9) (tool_10 "tool_10" Tool10) (tool_11 "tool_11" Tool11)
            (tool_12 "tool_12" Tool12) (tool_13 "tool_13" Tool13) (tool_14 "tool_14" Tool14) (tool_15 "tool_15" Tool15)
            (tool_16 "tool_16" Tool16) (tool_17 "tool_17" Tool17) (tool_18 "tool_18" Tool18) (tool_19 "tool_19" Tool19)
            (tool_20 "tool_20" Tool20) (tool_21 "tool_21" Tool21) (tool_22 "tool_22" Tool22) (tool_23 "tool_23" Tool23)
            (tool_24 "tool_24" Tool24) (tool_25 "tool_25" Tool25) (tool_26 "tool_26" Tool26) (tool_27 "tool_27" Tool27)
            (tool_28 "tool_28" Tool28) (tool_29 "tool_29" Tool29) (tool_30 "tool_30" Tool30) (tool_31 "tool_31" Tool31)
            (tool_32 "tool_32" Tool32) (tool_33 "tool_33" Tool33) (tool_34 "tool_34" Tool34) (tool_35 "tool_35" Tool35)
            (tool_36 "tool_36" Tool36) (tool_37 "tool_37" Tool37) (tool_38 "tool_38" Tool38) (tool_39 "tool_39" Tool39)
            (tool_40 "tool_40" Tool40) (tool_41 "tool_41" Tool41) (tool_42 "tool_42" Tool42) (tool_43 "tool_43" Tool43)
            (tool_44 "tool_44" Tool44) (tool_45 "tool_45" Tool45) (tool_46 "tool_46" Tool46) (tool_47 "tool_47" Tool47)
            (tool_48 "tool_48" Tool48) (tool_49 "tool_49" Tool49) (tool_50 "tool_50" Tool50) (tool_51 "tool_51" Tool51)
            (tool_52 "tool_52" Tool52) (tool_53 "tool_53" Tool53) (tool_54 "tool_54" Tool54) (tool_55 "tool_55" Tool55)
            (tool_56 "tool_56" Tool56) (tool_57 "tool_57" Tool57) (tool_58 "tool_58" Tool58) (tool_59 "tool_59" Tool59)
            (tool_60 "tool_60" Tool60) (tool_61 "tool_61" Tool61) (tool_62 "tool_62" Tool62) (tool_63 "tool_63" Tool63)
            (tool_64 "tool_64" Tool64) (tool_65 "tool_65" Tool65) (tool_66 "tool_66" Tool66) (tool_67 "tool_67" Tool67)
            (tool_68 "tool_68" Tool68) (tool_69 "tool_69" Tool69) (tool_70 "tool_70" Tool70) (tool_71 "tool_71" Tool71)
            (tool_72 "tool_72" Tool72) (tool_73 "tool_73" Tool73) (tool_74 "tool_74" Tool74) (tool_75 "tool_75" Tool75)
            (tool_76 "tool_76" Tool76) (tool_77 "tool_77" Tool77) (tool_78 "tool_78" Tool78) (tool_79 "tool_79" Tool79)
            (tool_80 "tool_80" Tool80) (tool_81 "tool_81" Tool81) (tool_82 "tool_82" Tool82) (tool_83 "tool_83" Tool83)
            (tool_84 "tool_84" Tool84) (tool_85 "tool_85" Tool85) (tool_86 "tool_86" Tool86) (tool_87 "tool_87" Tool87)
            (tool_88 "tool_88" Tool88) (tool_89 "tool_89" Tool89) (tool_90 "tool_90" Tool90) (tool_91 "tool_91" Tool91)
            (tool_92 "tool_92" Tool92) (tool_93 "tool_93" Tool93) (tool_94 "tool_94" Tool94) (tool_95 "tool_95" Tool95)
            (tool_96 "tool_96" Tool96) (tool_97 "tool_97" Tool97) (tool_98 "tool_98" Tool98) (tool_99 "tool_99" Tool99)
        }
    };
}

/// The tool-sdk side.
pub mod ours {
    use std::sync::Arc;

    use tool_sdk::prelude::*;
    use tool_sdk::{DynTool, TypedTool};

    macro_rules! sdk_tools {
        ($(($method:ident $name:tt $ty:ident))*) => {
            $(
                /// Joins its three fields.
                #[tool(name = $name, read_only, concurrency_safe, max_result_size_chars = 100_000)]
                #[derive(Debug, Deserialize, JsonSchema)]
                pub struct $ty {
                    /// The first part.
                    pub a: String,
                    /// An optional count.
                    pub b: Option<u32>,
                    /// A flag.
                    pub c: bool,
                }

                #[tool]
                impl Tool for $ty {
                    type Output = String;
                    async fn call(
                        self,
                        _ctx: &ToolUseContext,
                    ) -> Result<ToolResult<String>, ToolError> {
                        Ok(ToolResult::new(format!("{}:{:?}:{}", self.a, self.b, self.c)))
                    }
                }
            )*

            /// The 100 tools, as a pool.
            pub fn tools() -> Vec<Arc<dyn DynTool>> {
                vec![$(Arc::new(TypedTool::of::<$ty>(None)) as Arc<dyn DynTool>),*]
            }
        };
    }

    with_tools!(sdk_tools);
}

/// The rmcp side.
pub mod theirs {
    use rmcp::handler::server::router::tool::ToolRouter;
    use rmcp::handler::server::wrapper::Parameters;
    use rmcp::{ServerHandler, tool, tool_handler, tool_router};
    use schemars::JsonSchema;
    use serde::Deserialize;

    /// The server holding every tool.
    #[derive(Debug, Clone)]
    pub struct Server {
        /// rmcp's stored router.
        pub tool_router: ToolRouter<Self>,
    }

    macro_rules! rmcp_tools {
        ($(($method:ident $name:tt $ty:ident))*) => {
            $(
                /// Joins its three fields.
                #[derive(Debug, Deserialize, JsonSchema)]
                pub struct $ty {
                    /// The first part.
                    pub a: String,
                    /// An optional count.
                    pub b: Option<u32>,
                    /// A flag.
                    pub c: bool,
                }
            )*

            #[tool_router]
            impl Server {
                /// A server with every tool.
                pub fn new() -> Self {
                    Self { tool_router: Self::tool_router() }
                }

                $(
                    /// Joins its three fields.
                    #[tool(name = $name)]
                    async fn $method(&self, Parameters(input): Parameters<$ty>) -> String {
                        format!("{}:{:?}:{}", input.a, input.b, input.c)
                    }
                )*
            }
        };
    }

    with_tools!(rmcp_tools);

    #[tool_handler]
    impl ServerHandler for Server {}
}
