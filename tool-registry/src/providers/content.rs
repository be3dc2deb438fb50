//! A `tool_result`'s content as the parts other APIs can carry: text and images.

use serde_json::Value;
use tool_sdk::{ResultBlock, ToolResultContent};

/// One part of a result's content.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Part {
    /// Non-empty text.
    Text(String),
    /// An image: base64 data with its media type, or a URL.
    Image(Image),
}

/// An image of a result, from a Messages API image source.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Image {
    /// `{"type":"base64","media_type":..,"data":..}`.
    Base64 { media_type: String, data: String },
    /// `{"type":"url","url":..}`.
    Url(String),
}

impl Image {
    /// A URL for APIs that take one: the URL itself, or a `data:` URL.
    pub(crate) fn url(&self) -> String {
        match self {
            Self::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
            Self::Url(url) => url.clone(),
        }
    }
}

/// The text written for a `tool_reference` block outside the Messages API, which alone loads
/// the referenced definition: the host sends that tool's definition from the next request.
pub(crate) fn tool_reference_text(tool_name: &str) -> String {
    format!("Tool found: {tool_name}")
}

/// The parts of `content`, empty text dropped; a `tool_reference` becomes its text
/// ([`tool_reference_text`]); an image source of an unknown shape becomes a text part naming it.
pub(crate) fn parts(content: &ToolResultContent) -> Vec<Part> {
    match content {
        ToolResultContent::Text(text) if text.is_empty() => Vec::new(),
        ToolResultContent::Text(text) => vec![Part::Text(text.clone())],
        ToolResultContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ResultBlock::Text { text } if text.is_empty() => None,
                ResultBlock::Text { text } => Some(Part::Text(text.clone())),
                ResultBlock::ToolReference { tool_name } => {
                    Some(Part::Text(tool_reference_text(tool_name)))
                }
                ResultBlock::Image { source } => Some(image_of(source).map_or_else(
                    || Part::Text(format!("(an image with an unsupported source: {source})")),
                    Part::Image,
                )),
            })
            .collect(),
    }
}

fn image_of(source: &Value) -> Option<Image> {
    let field = |key: &str| source.get(key).and_then(Value::as_str).map(str::to_owned);
    match source.get("type").and_then(Value::as_str)? {
        "base64" => Some(Image::Base64 {
            media_type: field("media_type")?,
            data: field("data")?,
        }),
        "url" => Some(Image::Url(field("url")?)),
        _ => None,
    }
}

/// The text parts joined by `\n`.
pub(crate) fn joined_text(parts: &[Part]) -> String {
    parts
        .iter()
        .filter_map(|part| match part {
            Part::Text(text) => Some(text.as_str()),
            Part::Image(_) => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
