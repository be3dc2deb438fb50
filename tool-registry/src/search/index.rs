//! The keyword index behind ToolSearch: SPEC §3.4 steps 2–8, §3.5 and §3.6 without a regex.
//!
//! Everything the reference recomputes per query is computed once per deferred-tool list:
//! lowercased names, hints and descriptions; each name's parts (SPEC §3.3); and inverted lists
//! from every distinct name part and every distinct maximal run of ASCII word characters (in
//! hints and descriptions) to the tools containing it. A query term made only of word characters
//! matches `\bterm\b` exactly when it equals one of those runs, so it is answered by one binary
//! search in the vocabulary; any other term is matched literally with the boundary rule of
//! [`word_bounded_contains`](super::tokens::word_bounded_contains).
//!
//! Memory: one arena per kind of text and compressed (CSR) posting lists of `u32` tool ids; see
//! [`SearchIndex::heap_bytes`].

use std::cmp::Reverse;
use std::collections::HashMap;

use memchr::memmem::Finder;

use super::tokens::{
    is_word_term, parse_tool_name, split_js_whitespace, word_bounded_contains, word_runs,
};

/// One deferred tool as the index sees it.
#[derive(Debug, Clone, Copy)]
pub struct IndexEntry<'a> {
    /// The primary name.
    pub name: &'a str,
    /// The search hint, if any (an empty hint counts as none, as in the reference).
    pub search_hint: Option<&'a str>,
    /// The description ToolSearch scores against: the tool's `prompt()` (SPEC §3.5).
    pub description: &'a str,
}

/// Score weights of SPEC §3.5.
mod weight {
    pub const PART_MCP: u32 = 12;
    pub const PART: u32 = 10;
    pub const SUBSTRING_MCP: u32 = 6;
    pub const SUBSTRING: u32 = 5;
    pub const HINT: u32 = 4;
    pub const DESCRIPTION: u32 = 2;
}

const HIT_SUBSTRING: u8 = 1;
const HIT_PART: u8 = 2;
const HIT_HINT: u8 = 4;
const HIT_DESCRIPTION: u8 = 8;

const FLAG_MCP: u8 = 1;
const FLAG_HINT: u8 = 2;

/// Strings stored back to back, addressed by position.
#[derive(Debug, Default)]
struct Arena {
    text: String,
    bounds: Vec<u32>,
}

impl Arena {
    fn new() -> Self {
        Self {
            text: String::new(),
            bounds: vec![0],
        }
    }

    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.bounds.push(to_u32(self.text.len()));
    }

    fn get(&self, index: usize) -> &str {
        &self.text[self.bounds[index] as usize..self.bounds[index + 1] as usize]
    }

    fn len(&self) -> usize {
        self.bounds.len() - 1
    }

    fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.bounds.capacity() * 4
    }

    fn shrink(&mut self) {
        self.text.shrink_to_fit();
        self.bounds.shrink_to_fit();
    }
}

/// Posting lists in compressed-row form: the tools of entry `k` are
/// `tools[offsets[k]..offsets[k + 1]]`, ascending.
#[derive(Debug, Default)]
struct Postings {
    offsets: Vec<u32>,
    tools: Vec<u32>,
}

impl Postings {
    fn from_lists(lists: &[Vec<u32>], order: &[u32]) -> Self {
        let mut offsets = Vec::with_capacity(order.len() + 1);
        let total = lists.iter().map(Vec::len).sum();
        let mut tools = Vec::with_capacity(total);
        offsets.push(0);
        for &id in order {
            tools.extend_from_slice(&lists[id as usize]);
            offsets.push(to_u32(tools.len()));
        }
        Self { offsets, tools }
    }

    fn get(&self, index: usize) -> &[u32] {
        &self.tools[self.offsets[index] as usize..self.offsets[index + 1] as usize]
    }

    fn heap_bytes(&self) -> usize {
        (self.offsets.capacity() + self.tools.capacity()) * 4
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).expect("the search index holds less than 4 GiB of text")
}

/// A prebuilt keyword index over a list of deferred tools, in pool order (ids are positions).
#[derive(Debug)]
pub struct SearchIndex {
    /// Per tool: lowercased name, lowercased hint, lowercased description.
    names: Arena,
    hints: Arena,
    descriptions: Arena,
    flags: Vec<u8>,
    /// Tool ids sorted by (lowercased name, id), for the exact-name fast path.
    by_name: Vec<u32>,
    parts: Arena,
    part_postings: Postings,
    /// Distinct word runs, sorted, with their hint and description postings.
    words: Arena,
    hint_postings: Postings,
    description_postings: Postings,
    source_bytes: usize,
}

impl SearchIndex {
    /// Builds the index. Ids are positions in `entries`.
    ///
    /// # Panics
    /// If the text adds up to 4 GiB or more.
    pub fn build<'a>(entries: impl IntoIterator<Item = IndexEntry<'a>>) -> Self {
        let mut builder = Builder::default();
        for entry in entries {
            builder.add(entry);
        }
        builder.finish()
    }

    /// How many tools are indexed.
    pub fn len(&self) -> usize {
        self.flags.len()
    }

    /// `true` when no tool is indexed.
    // Used by the crate's tests and `test_support` only.
    #[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
    pub fn is_empty(&self) -> bool {
        self.flags.is_empty()
    }

    /// The lowercased name of tool `id`.
    // Used by the crate's tests and `test_support` only.
    #[cfg_attr(not(any(test, feature = "test-support")), allow(dead_code))]
    pub fn lowercase_name(&self, id: usize) -> &str {
        self.names.get(id)
    }

    /// Bytes the index owns on the heap (capacities of all its buffers), the figure compared
    /// with [`SearchIndex::indexed_text_bytes`].
    pub fn heap_bytes(&self) -> usize {
        self.names.heap_bytes()
            + self.hints.heap_bytes()
            + self.descriptions.heap_bytes()
            + self.flags.capacity()
            + self.by_name.capacity() * 4
            + self.parts.heap_bytes()
            + self.part_postings.heap_bytes()
            + self.words.heap_bytes()
            + self.hint_postings.heap_bytes()
            + self.description_postings.heap_bytes()
    }

    /// Bytes of the text indexed: every name, hint and description as given, in UTF-8.
    pub fn indexed_text_bytes(&self) -> usize {
        self.source_bytes
    }

    /// SPEC §3.4 step 2 over the indexed tools: the first id whose lowercased name equals `q`
    /// (`q` already lowercased and trimmed).
    pub fn exact_name(&self, q: &str) -> Option<usize> {
        let at = self
            .by_name
            .partition_point(|&id| self.names.get(id as usize) < q);
        let &id = self.by_name.get(at)?;
        (self.names.get(id as usize) == q).then_some(id as usize)
    }

    /// SPEC §3.4 step 3: for `q` starting with `mcp__` and longer than that, the first
    /// `max_results` ids (pool order) whose lowercased name starts with `q`; empty otherwise.
    pub fn mcp_prefix(&self, q: &str, max_results: usize) -> Vec<usize> {
        if !(q.starts_with("mcp__") && q.len() > 5) {
            return Vec::new();
        }
        (0..self.len())
            .filter(|&id| self.names.get(id).starts_with(q))
            .take(max_results)
            .collect()
    }

    /// SPEC §3.4 steps 4–8, §3.5 and §3.6: splits `q` (lowercased and trimmed) into terms,
    /// applies the `+required` pre-filter, scores every candidate and returns at most
    /// `max_results` ids by score, highest first, ties in id (pool) order.
    pub fn rank(&self, q: &str, max_results: usize) -> Vec<usize> {
        self.rank_scored(q, max_results)
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    }

    /// [`SearchIndex::rank`] with each id's score.
    pub fn rank_scored(&self, q: &str, max_results: usize) -> Vec<(usize, u32)> {
        let terms = Terms::parse(q);
        if terms.unique.is_empty() || max_results == 0 {
            return Vec::new();
        }
        let n = self.len();
        let mut scores = vec![0u32; n];
        let mut required_hits = vec![0u16; n];
        let mut hits = vec![0u8; n];
        let mut touched_by_term = Vec::new();
        let mut touched = Vec::new();
        for term in &terms.unique {
            self.mark_term(term.text, &mut hits, &mut touched_by_term);
            for &id in &touched_by_term {
                let id = id as usize;
                let hit = std::mem::take(&mut hits[id]);
                if scores[id] == 0 && required_hits[id] == 0 {
                    touched.push(id);
                }
                scores[id] += term.count * self.term_score(id, hit);
                if term.required {
                    required_hits[id] += 1;
                }
            }
            touched_by_term.clear();
        }
        let mut ranked: Vec<(usize, u32)> = touched
            .into_iter()
            .filter(|&id| scores[id] > 0 && required_hits[id] == terms.required_unique)
            .map(|id| (id, scores[id]))
            .collect();
        let order =
            |a: &(usize, u32), b: &(usize, u32)| (Reverse(a.1), a.0).cmp(&(Reverse(b.1), b.0));
        if ranked.len() > max_results {
            ranked.select_nth_unstable_by(max_results - 1, order);
            ranked.truncate(max_results);
        }
        ranked.sort_unstable_by(order);
        ranked
    }

    fn term_score(&self, id: usize, hit: u8) -> u32 {
        let mcp = self.flags[id] & FLAG_MCP != 0;
        let mut score = if hit & HIT_PART != 0 {
            if mcp { weight::PART_MCP } else { weight::PART }
        } else if hit & HIT_SUBSTRING != 0 {
            if mcp {
                weight::SUBSTRING_MCP
            } else {
                weight::SUBSTRING
            }
        } else {
            0
        };
        // The reference adds 3 when `full` contains the term while the running score is 0.
        // `full` is the parts joined by spaces and a term has no whitespace, so a term inside
        // `full` lies inside one part and has already scored above: that branch never fires.
        if hit & HIT_HINT != 0 {
            score += weight::HINT;
        }
        if hit & HIT_DESCRIPTION != 0 {
            score += weight::DESCRIPTION;
        }
        score
    }

    /// Sets the hit bits of one term for every tool it touches, listing those tools once.
    fn mark_term(&self, term: &str, hits: &mut [u8], touched: &mut Vec<u32>) {
        let mut mark = |id: u32, bit: u8| {
            let slot = &mut hits[id as usize];
            if *slot == 0 {
                touched.push(id);
            }
            *slot |= bit;
        };
        let finder = Finder::new(term);
        for part in 0..self.parts.len() {
            let text = self.parts.get(part);
            let bit = if text == term {
                HIT_PART
            } else if finder.find(text.as_bytes()).is_some() {
                HIT_SUBSTRING
            } else {
                continue;
            };
            for &id in self.part_postings.get(part) {
                mark(id, bit);
            }
        }
        if is_word_term(term) {
            if let Some(word) = self.word_id(term) {
                for &id in self.hint_postings.get(word) {
                    mark(id, HIT_HINT);
                }
                for &id in self.description_postings.get(word) {
                    mark(id, HIT_DESCRIPTION);
                }
            }
            return;
        }
        for id in 0..self.len() {
            if self.flags[id] & FLAG_HINT != 0 && word_bounded_contains(self.hints.get(id), &finder)
            {
                mark(to_u32(id), HIT_HINT);
            }
            if word_bounded_contains(self.descriptions.get(id), &finder) {
                mark(to_u32(id), HIT_DESCRIPTION);
            }
        }
    }

    fn word_id(&self, term: &str) -> Option<usize> {
        let n = self.words.len();
        let at = partition_point(n, |k| self.words.get(k) < term);
        (at < n && self.words.get(at) == term).then_some(at)
    }
}

fn partition_point(n: usize, mut before: impl FnMut(usize) -> bool) -> usize {
    let (mut low, mut high) = (0, n);
    while low < high {
        let mid = low + (high - low) / 2;
        if before(mid) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

/// The query's terms (SPEC §3.4 steps 4–6), de-duplicated with their counts: scores add up per
/// occurrence, and a term is required when any occurrence was written `+term`.
struct Terms<'q> {
    unique: Vec<Term<'q>>,
    required_unique: u16,
}

struct Term<'q> {
    text: &'q str,
    count: u32,
    required: bool,
}

impl<'q> Terms<'q> {
    fn parse(q: &'q str) -> Self {
        let mut unique: Vec<Term<'q>> = Vec::new();
        for raw in split_js_whitespace(q) {
            let (text, required) = match raw.strip_prefix('+') {
                Some(rest) if !rest.is_empty() => (rest, true),
                _ => (raw, false),
            };
            if let Some(term) = unique.iter_mut().find(|term| term.text == text) {
                term.count += 1;
                term.required |= required;
            } else {
                unique.push(Term {
                    text,
                    count: 1,
                    required,
                });
            }
        }
        let required_unique = unique.iter().filter(|term| term.required).count();
        Self {
            unique,
            required_unique: u16::try_from(required_unique).unwrap_or(u16::MAX),
        }
    }
}

#[derive(Default)]
struct Builder<'a> {
    names: Vec<String>,
    hints: Vec<String>,
    descriptions: Vec<String>,
    flags: Vec<u8>,
    part_ids: HashMap<String, u32>,
    part_lists: Vec<Vec<u32>>,
    word_ids: HashMap<String, u32>,
    hint_lists: Vec<Vec<u32>>,
    description_lists: Vec<Vec<u32>>,
    source_bytes: usize,
    _entries: std::marker::PhantomData<&'a ()>,
}

impl<'a> Builder<'a> {
    fn add(&mut self, entry: IndexEntry<'a>) {
        let id = to_u32(self.flags.len());
        let hint = entry.search_hint.filter(|hint| !hint.is_empty());
        self.source_bytes += entry.name.len() + hint.map_or(0, str::len) + entry.description.len();
        let parsed = parse_tool_name(entry.name);
        let mut flags = 0;
        if parsed.is_mcp {
            flags |= FLAG_MCP;
        }
        if hint.is_some() {
            flags |= FLAG_HINT;
        }
        self.flags.push(flags);
        for part in parsed.parts {
            let next = to_u32(self.part_lists.len());
            let part_id = *self.part_ids.entry(part).or_insert(next);
            if part_id == next {
                self.part_lists.push(Vec::new());
            }
            push_once(&mut self.part_lists[part_id as usize], id);
        }
        let hint = hint.map(str::to_lowercase).unwrap_or_default();
        let description = entry.description.to_lowercase();
        for run in word_runs(&hint) {
            let word = self.word(run);
            push_once(&mut self.hint_lists[word], id);
        }
        for run in word_runs(&description) {
            let word = self.word(run);
            push_once(&mut self.description_lists[word], id);
        }
        self.names.push(entry.name.to_lowercase());
        self.hints.push(hint);
        self.descriptions.push(description);
    }

    fn word(&mut self, run: &str) -> usize {
        if let Some(&id) = self.word_ids.get(run) {
            return id as usize;
        }
        let id = self.hint_lists.len();
        self.word_ids.insert(run.to_owned(), to_u32(id));
        self.hint_lists.push(Vec::new());
        self.description_lists.push(Vec::new());
        id
    }

    fn finish(self) -> SearchIndex {
        let arena = |items: &[String]| {
            let mut arena = Arena::new();
            arena
                .text
                .reserve_exact(items.iter().map(String::len).sum());
            arena.bounds.reserve_exact(items.len());
            for item in items {
                arena.push(item);
            }
            arena.shrink();
            arena
        };
        let names = arena(&self.names);
        let mut by_name: Vec<u32> = (0..to_u32(self.names.len())).collect();
        by_name.sort_by(|&a, &b| {
            self.names[a as usize]
                .cmp(&self.names[b as usize])
                .then(a.cmp(&b))
        });

        let (part_order, parts) = sorted_vocabulary(self.part_ids);
        let (word_order, words) = sorted_vocabulary(self.word_ids);
        SearchIndex {
            names,
            hints: arena(&self.hints),
            descriptions: arena(&self.descriptions),
            flags: self.flags,
            by_name,
            part_postings: Postings::from_lists(&self.part_lists, &part_order),
            parts,
            hint_postings: Postings::from_lists(&self.hint_lists, &word_order),
            description_postings: Postings::from_lists(&self.description_lists, &word_order),
            words,
            source_bytes: self.source_bytes,
        }
    }
}

/// The vocabulary sorted by text: the old ids in sorted order, and the texts as an arena.
fn sorted_vocabulary(ids: HashMap<String, u32>) -> (Vec<u32>, Arena) {
    let mut entries: Vec<(String, u32)> = ids.into_iter().collect();
    entries.sort_unstable();
    let mut arena = Arena::new();
    arena
        .text
        .reserve_exact(entries.iter().map(|(text, _)| text.len()).sum());
    arena.bounds.reserve_exact(entries.len());
    let order = entries
        .into_iter()
        .map(|(text, id)| {
            arena.push(&text);
            id
        })
        .collect();
    arena.shrink();
    (order, arena)
}

fn push_once(list: &mut Vec<u32>, id: u32) {
    if list.last() != Some(&id) {
        list.push(id);
    }
}
