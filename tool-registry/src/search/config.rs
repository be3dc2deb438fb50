//! [`ToolSearchConfig`]: the modes and gates of SPEC §4.2–§4.5, built explicitly or read from
//! the environment by [`ToolSearchConfig::from_env`].

use super::deferral::DeferralRules;
use super::tokens::js_trim;

/// Default percentage of the context window that deferred tools must fill before `auto` mode
/// turns search on (SPEC §4.5 `DEFAULT_AUTO_TOOL_SEARCH_PERCENTAGE`).
pub(crate) const DEFAULT_AUTO_PERCENTAGE: u8 = 10;

/// How tool search runs (SPEC §4.2 `getToolSearchMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolSearchMode {
    /// `standard`: no search; every tool is sent with its schema.
    Standard,
    /// `tst`: search always on; deferred tools are sent by name only.
    Tst,
    /// `tst-auto`: search on only when the deferred tools would fill at least the configured
    /// percentage of the context window (SPEC §4.5).
    TstAuto,
}

impl ToolSearchMode {
    /// The mode for a value of `ENABLE_TOOL_SEARCH` (`None` when unset), exactly per SPEC §4.2:
    ///
    /// | value | mode |
    /// |---|---|
    /// | any, with `kill_switch` (`CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS` truthy) | `Standard` |
    /// | `auto:N` with N parsing to 0 (after clamping; `auto:-5`, `auto:0x10`) | `Tst` |
    /// | `auto:N` with N parsing to 100 or more | `Standard` |
    /// | `auto`, `auto:` + anything else (case-sensitive) | `TstAuto` |
    /// | `1` `true` `yes` `on` (any case, surrounding whitespace) | `Tst` |
    /// | `0` `false` `no` `off` (any case, surrounding whitespace) | `Standard` |
    /// | unset, empty, anything else | `Tst` |
    pub fn from_setting(value: Option<&str>, kill_switch: bool) -> Self {
        if kill_switch {
            return Self::Standard;
        }
        let Some(value) = value.filter(|value| !value.is_empty()) else {
            return Self::Tst;
        };
        match parse_auto_percentage(value) {
            Some(0) => return Self::Tst,
            Some(100) => return Self::Standard,
            _ => {}
        }
        if value == "auto" || value.starts_with("auto:") {
            Self::TstAuto
        } else if is_env_truthy(Some(value)) {
            Self::Tst
        } else if is_env_defined_falsy(Some(value)) {
            Self::Standard
        } else {
            Self::Tst
        }
    }
}

/// `parseAutoPercentage` (SPEC §4.2): `None` unless `value` starts with `auto:`; otherwise
/// JavaScript `parseInt(rest, 10)` (leading whitespace skipped, a sign allowed, digits up to the
/// first other char; no digit → `None`) clamped to 0..=100.
///
/// ```
/// use tool_registry::test_support::parse_auto_percentage;
/// assert_eq!(parse_auto_percentage("auto:25"), Some(25));
/// assert_eq!(parse_auto_percentage("auto: 7%"), Some(7));
/// assert_eq!(parse_auto_percentage("auto:0x10"), Some(0));
/// assert_eq!(parse_auto_percentage("auto:-3"), Some(0));
/// assert_eq!(parse_auto_percentage("auto:250"), Some(100));
/// assert_eq!(parse_auto_percentage("auto:x"), None);
/// assert_eq!(parse_auto_percentage("auto"), None);
/// ```
pub fn parse_auto_percentage(value: &str) -> Option<u8> {
    let rest = value.strip_prefix("auto:")?;
    let rest = rest.trim_start_matches(super::tokens::is_js_whitespace);
    let (negative, digits) = match rest.as_bytes().first() {
        Some(b'-') => (true, &rest[1..]),
        Some(b'+') => (false, &rest[1..]),
        _ => (false, rest),
    };
    let digits: &str = &digits[..digits
        .bytes()
        .position(|byte| !byte.is_ascii_digit())
        .unwrap_or(digits.len())];
    if digits.is_empty() {
        return None;
    }
    if negative {
        return Some(0);
    }
    let mut value: u32 = 0;
    for byte in digits.bytes() {
        value = (value * 10 + u32::from(byte - b'0')).min(100);
    }
    Some(u8::try_from(value).unwrap_or(100))
}

/// The percentage used by `auto` mode (SPEC §4.2): the clamped N of `auto:N`, otherwise
/// [`DEFAULT_AUTO_PERCENTAGE`] (unset, `auto`, an unparsable `auto:` value, any other value).
pub(crate) fn auto_percentage_from_setting(value: Option<&str>) -> u8 {
    value
        .and_then(parse_auto_percentage)
        .unwrap_or(DEFAULT_AUTO_PERCENTAGE)
}

/// `isEnvTruthy`: non-empty and, lowercased and trimmed, one of `1` `true` `yes` `on`.
pub(crate) fn is_env_truthy(value: Option<&str>) -> bool {
    value.is_some_and(|value| matches!(js_trim(&value.to_lowercase()), "1" | "true" | "yes" | "on"))
}

/// `isEnvDefinedFalsy`: non-empty and, lowercased and trimmed, one of `0` `false` `no` `off`.
pub(crate) fn is_env_defined_falsy(value: Option<&str>) -> bool {
    value
        .is_some_and(|value| matches!(js_trim(&value.to_lowercase()), "0" | "false" | "no" | "off"))
}

/// Which API the host talks to (SPEC §4.3); decides the beta header of SPEC §4.4.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum ApiProvider {
    /// Anthropic's own API.
    #[default]
    FirstParty,
    /// Amazon Bedrock.
    Bedrock,
    /// Google Vertex AI.
    Vertex,
    /// Microsoft Foundry.
    Foundry,
}

impl ApiProvider {
    /// The beta header a request with tool search carries (SPEC §4.4):
    /// `advanced-tool-use-2025-11-20` for first party and Foundry,
    /// `tool-search-tool-2025-10-19` for Vertex and Bedrock.
    pub const fn tool_search_beta(self) -> &'static str {
        match self {
            Self::FirstParty | Self::Foundry => "advanced-tool-use-2025-11-20",
            Self::Bedrock | Self::Vertex => "tool-search-tool-2025-10-19",
        }
    }
}

/// The first-party API host (SPEC §4.3).
pub(crate) const FIRST_PARTY_HOST: &str = "api.anthropic.com";
/// The staging host, accepted when [`ToolSearchConfig::accept_staging_host`] is set.
pub(crate) const STAGING_HOST: &str = "api-staging.anthropic.com";

/// Tool-search configuration (SPEC §4): the mode, the auto percentage, what the optimistic gate
/// looks at, the context window and the switches the reference takes from build flags and
/// feature services.
///
/// Build it explicitly (`ToolSearchConfig { mode: ToolSearchMode::TstAuto, ..Default::default() }`)
/// or from the environment with [`ToolSearchConfig::from_env`]; nothing else reads the
/// environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSearchConfig {
    /// The mode (SPEC §4.2). Default `Tst`.
    pub mode: ToolSearchMode,
    /// Percentage of the context window for `TstAuto`, 0..=100. Default 10.
    pub auto_percentage: u8,
    /// `true` when the mode was chosen explicitly (the reference: `ENABLE_TOOL_SEARCH` set and
    /// non-empty). When `false`, a first-party provider behind a non-first-party base URL (a
    /// proxy) keeps search off (SPEC §4.3). Default `false`.
    pub mode_explicit: bool,
    /// The API provider. Default first party.
    pub provider: ApiProvider,
    /// The API base URL (`ANTHROPIC_BASE_URL`), `None` for the default endpoint.
    pub base_url: Option<String>,
    /// Also count `STAGING_HOST` as first party (the reference: `USER_TYPE=ant`).
    pub accept_staging_host: bool,
    /// Model-id substrings of models without `tool_reference` support; the lowercased model id
    /// is tested against each as given (SPEC §4.4). Default `["haiku"]`.
    pub unsupported_model_patterns: Vec<String>,
    /// The context window in tokens for the auto threshold; `None` derives it from the model id
    /// (SPEC §4.5): 1,000,000 for ids containing `[1m]` (any case) unless
    /// [`ToolSearchConfig::disable_1m_context`], else 200,000.
    pub context_window: Option<u64>,
    /// Ignore the `[1m]` marker (`CLAUDE_CODE_DISABLE_1M_CONTEXT`).
    pub disable_1m_context: bool,
    /// The deferred-tools delta gate (SPEC §8.2): announce deferred tools in
    /// `<system-reminder>` deltas instead of an `<available-deferred-tools>` block. Default
    /// `false`, as in the reference.
    pub deferred_delta: bool,
    /// The deferral switches of SPEC §4.1.
    pub deferral: DeferralRules,
}

impl Default for ToolSearchConfig {
    fn default() -> Self {
        Self {
            mode: ToolSearchMode::Tst,
            auto_percentage: DEFAULT_AUTO_PERCENTAGE,
            mode_explicit: false,
            provider: ApiProvider::FirstParty,
            base_url: None,
            accept_staging_host: false,
            unsupported_model_patterns: vec!["haiku".to_owned()],
            context_window: None,
            disable_1m_context: false,
            deferred_delta: false,
            deferral: DeferralRules::default(),
        }
    }
}

impl ToolSearchConfig {
    /// A configuration with `mode` chosen explicitly and everything else default.
    pub fn with_mode(mode: ToolSearchMode) -> Self {
        Self {
            mode,
            mode_explicit: true,
            ..Self::default()
        }
    }

    /// Reads the variables the reference reads from the process environment
    /// (`ENABLE_TOOL_SEARCH`, `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS`,
    /// `CLAUDE_CODE_USE_BEDROCK`, `CLAUDE_CODE_USE_VERTEX`, `CLAUDE_CODE_USE_FOUNDRY`,
    /// `ANTHROPIC_BASE_URL`, `USER_TYPE`, `CLAUDE_CODE_DISABLE_1M_CONTEXT`; see
    /// [`ToolSearchConfig::from_vars`]).
    pub fn from_env() -> Self {
        Self::from_vars(|name| {
            std::env::var_os(name).map(|value| value.to_string_lossy().into_owned())
        })
    }

    /// Builds the configuration from a variable lookup, as the reference reads its
    /// environment: `ENABLE_TOOL_SEARCH` gives the mode and percentage (SPEC §4.2) and, when
    /// non-empty, `mode_explicit`; `CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS` truthy forces
    /// `Standard`; `CLAUDE_CODE_USE_BEDROCK` / `_VERTEX` / `_FOUNDRY` truthy pick the provider
    /// in that order; `ANTHROPIC_BASE_URL` (non-empty) is the base URL; `USER_TYPE=ant` accepts
    /// the staging host; `CLAUDE_CODE_DISABLE_1M_CONTEXT` truthy ignores `[1m]`.
    pub fn from_vars(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let enable = lookup("ENABLE_TOOL_SEARCH");
        let enable = enable.as_deref();
        let truthy = |name: &str| is_env_truthy(lookup(name).as_deref());
        let provider = if truthy("CLAUDE_CODE_USE_BEDROCK") {
            ApiProvider::Bedrock
        } else if truthy("CLAUDE_CODE_USE_VERTEX") {
            ApiProvider::Vertex
        } else if truthy("CLAUDE_CODE_USE_FOUNDRY") {
            ApiProvider::Foundry
        } else {
            ApiProvider::FirstParty
        };
        Self {
            mode: ToolSearchMode::from_setting(
                enable,
                truthy("CLAUDE_CODE_DISABLE_EXPERIMENTAL_BETAS"),
            ),
            auto_percentage: auto_percentage_from_setting(enable),
            mode_explicit: enable.is_some_and(|value| !value.is_empty()),
            provider,
            base_url: lookup("ANTHROPIC_BASE_URL").filter(|url| !url.is_empty()),
            accept_staging_host: lookup("USER_TYPE").as_deref() == Some("ant"),
            disable_1m_context: truthy("CLAUDE_CODE_DISABLE_1M_CONTEXT"),
            ..Self::default()
        }
    }

    /// `true` when the base URL is unset or its WHATWG host (lowercased, default port dropped)
    /// is exactly `FIRST_PARTY_HOST` (or `STAGING_HOST` when accepted). An unparsable URL is
    /// not first party (SPEC §4.3).
    pub fn is_first_party_base_url(&self) -> bool {
        let Some(base_url) = &self.base_url else {
            return true;
        };
        let Ok(url) = url::Url::parse(base_url) else {
            return false;
        };
        let host = match (url.host_str(), url.port()) {
            (Some(host), None) => host.to_owned(),
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (None, _) => return false,
        };
        host == FIRST_PARTY_HOST || (self.accept_staging_host && host == STAGING_HOST)
    }

    /// The optimistic gate (SPEC §4.3 `isToolSearchEnabledOptimistic`): `false` in `Standard`
    /// mode, and `false` when the mode was not chosen explicitly while a first-party provider
    /// is reached through a non-first-party base URL; `true` otherwise. It decides whether the
    /// ToolSearch tool belongs in the pool at all.
    pub fn is_enabled_optimistic(&self) -> bool {
        if self.mode == ToolSearchMode::Standard {
            return false;
        }
        !(!self.mode_explicit
            && self.provider == ApiProvider::FirstParty
            && !self.is_first_party_base_url())
    }

    /// SPEC §4.4 step 1: `false` when the lowercased `model` contains any of
    /// [`ToolSearchConfig::unsupported_model_patterns`] (an empty list means `["haiku"]`).
    pub fn model_supports_tool_reference(&self, model: &str) -> bool {
        let model = model.to_lowercase();
        if self.unsupported_model_patterns.is_empty() {
            return !model.contains("haiku");
        }
        !self
            .unsupported_model_patterns
            .iter()
            .any(|pattern| model.contains(pattern.as_str()))
    }
}
