//! The rest/v1 query string, parsed exactly like PostgREST: the grammars of `select`,
//! filters, `and`/`or` trees, `order`, `columns`, `on_conflict` and `limit`/`offset` keys,
//! with PostgREST's PGRST100 messages (parsec errors, see [`super::parsec`]), the
//! canonical query string of `Content-Location`, and printers that turn an AST back into
//! query-string text.
//!
//! Nothing here knows the schema: names and values stay the client's text.

use std::collections::HashMap;

use super::ast::*;
use super::parsec::{
    self, Input, Parser, Reply, Seq, State, alt, alts, amany, any_char, between, char_, digit, eof,
    fail0, label, letter, look_ahead, many1, map, none_of, not_followed_by, one_of, option,
    option_maybe, or_else, ret, sep_by, sep_by1, string, try_,
};
use crate::rest_v1::error::ApiError;

/// `limit`/`offset` for one embed path (empty path = root). Later keys override earlier.
///
/// Values follow PostgREST: an unparseable value counts as absent, except that an
/// unparseable `limit` next to an `offset` for the same key is a limit of 0 (PostgREST
/// then computes `[offset, offset - 1]`). Values beyond `i64` saturate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeParam {
    pub path: EmbedPath,
    pub limit: Option<i64>,
    pub offset: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParseMode {
    Relation,
    /// GET/HEAD `/rpc/fn`: a value that is not an operator expression is an argument.
    RpcRead,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryParams {
    /// Absent `select` → `[Star]`; `select=` → `[]`.
    pub select: Vec<SelectItem>,
    /// In query-string order.
    pub filters: Vec<(EmbedPath, Filter)>,
    pub logic: Vec<(EmbedPath, LogicTree)>,
    pub order: Vec<(EmbedPath, Vec<OrderTerm>)>,
    /// One entry per distinct path (root included when given), in order of appearance.
    pub ranges: Vec<RangeParam>,
    /// A set in PostgREST: sorted (by code point) and without duplicates.
    pub columns: Option<Vec<String>>,
    pub on_conflict: Option<Vec<String>>,
    /// RpcRead only: (argument name, raw value), in order, repeats included.
    pub rpc_args: Vec<(String, String)>,
    /// The canonical query string (no leading '?'), "" if none.
    pub canonical: String,
}

/// How deeply embeds (in `select`) and `and`/`or` nodes may nest. PostgREST has no limit;
/// this one keeps the recursive parsers' stack use bounded.
pub const MAX_NESTING: usize = 100;
const NESTING_MESSAGE: &str = "nesting depth exceeds the maximum of 100";

impl QueryParams {
    /// `raw_query` is the raw (still percent-encoded) query string without the leading
    /// '?'. Errors are PGRST100, in PostgREST's order: `order`, `and`/`or`, `columns`,
    /// `select`, filters, `on_conflict` (then the tree paths of `limit`/`offset` keys,
    /// which PostgREST only checks while planning).
    pub fn parse(raw_query: &str, mode: ParseMode) -> Result<QueryParams, ApiError> {
        let raw = split_query(raw_query);
        let canonical = canonical(&raw);
        let items = raw
            .iter()
            .map(|(key, value)| Ok((utf8(key)?, value.as_deref())))
            .collect::<Result<Vec<(&str, Option<&[u8]>)>, ApiError>>()?;
        let with_value: Vec<(&str, &[u8])> = items
            .iter()
            .filter_map(|&(key, value)| value.map(|value| (key, value)))
            .collect();
        let lookup = |name: &str| -> Result<Option<&str>, ApiError> {
            match items.iter().find(|(key, _)| *key == name) {
                Some((_, Some(value))) => utf8(value).map(Some),
                _ => Ok(None),
            }
        };

        let mut order = Vec::new();
        for &(key, value) in with_value
            .iter()
            .filter(|(key, _)| last_segment(key) == "order")
        {
            let (path, _) = parse_tree_path(key)?;
            let value = utf8(value)?;
            let terms = run(
                order_terms,
                || format!("failed to parse order ({value})"),
                value,
            )?;
            order.push((path, terms));
        }

        let mut logic = Vec::new();
        for &(key, value) in with_value
            .iter()
            .filter(|(key, _)| matches!(last_segment(key), "and" | "or"))
        {
            let names = run(
                logic_path,
                || format!("failed to parse logic path ({key})"),
                key,
            )?;
            let (init, last) = names.split_at(names.len().saturating_sub(1));
            let operator = last.first().cloned().unwrap_or_default();
            let operator = if names.iter().any(|name| name == "not") {
                format!("not.{operator}")
            } else {
                operator
            };
            let path = init.iter().filter(|name| *name != "not").cloned().collect();
            let value = utf8(value)?;
            let tree = run(
                |input: &Input, state: State| logic_tree(input, state, 0),
                || format!("failed to parse logic tree ({value})"),
                &format!("{operator}{value}"),
            )?;
            logic.push((path, tree));
        }

        let columns = match lookup("columns")? {
            Some(value) => {
                let mut names = run(
                    column_list,
                    || format!("failed to parse columns parameter ({value})"),
                    value,
                )?;
                names.sort();
                names.dedup();
                Some(names)
            }
            None => None,
        };

        let select_text = lookup("select")?.unwrap_or("*");
        let select = parse_select(select_text)?;

        let mut filters = Vec::new();
        let mut rpc_args = Vec::new();
        for &(key, value) in with_value.iter().filter(|(key, _)| is_filter_key(key)) {
            let (path, field) = parse_tree_path(key)?;
            let value = utf8(value)?;
            let source = || format!("failed to parse filter ({value})");
            let parsed = match (simple_comparison(value), mode) {
                (Some(operation), _) => Some((false, operation)),
                (None, ParseMode::Relation) => Some(run(op_expr(single_value), source, value)?),
                (None, ParseMode::RpcRead) => run(
                    alt(map(op_expr(single_value), Some), ret(None)),
                    source,
                    value,
                )?,
            };
            match parsed {
                Some((negated, operation)) => filters.push((
                    path,
                    Filter {
                        field,
                        negated,
                        operation,
                    },
                )),
                None => rpc_args.push((field.name, value.to_owned())),
            }
        }

        let on_conflict = match lookup("on_conflict")? {
            Some(value) => Some(run(
                column_list,
                || format!("failed to parse on_conflict parameter ({value})"),
                value,
            )?),
            None => None,
        };

        let ranges = ranges(&with_value)?;

        Ok(QueryParams {
            select,
            filters,
            logic,
            order,
            ranges,
            columns,
            on_conflict,
            rpc_args,
            canonical,
        })
    }

    /// (limit, offset) of the root (empty path), if given.
    pub fn root_range(&self) -> (Option<i64>, Option<i64>) {
        self.ranges
            .iter()
            .find(|range| range.path.is_empty())
            .map(|range| (range.limit, range.offset))
            .unwrap_or((None, None))
    }
}

// ---------------------------------------------------------------------------------------
// Query-string decoding (http-types `parseQueryReplacePlus`, HTTP `urlEncodeVars`)

type RawItem = (Vec<u8>, Option<Vec<u8>>);

/// Items split on `&` and `;`, each split at its first `=`, percent-decoded (`+` is a
/// space, a `%` without two hex digits stays).
fn split_query(raw: &str) -> Vec<RawItem> {
    let mut items = Vec::new();
    let mut rest = raw.as_bytes();
    while !rest.is_empty() {
        let end = rest
            .iter()
            .position(|&b| b == b'&' || b == b';')
            .unwrap_or(rest.len());
        let chunk = &rest[..end];
        let item = match chunk.iter().position(|&b| b == b'=') {
            Some(eq) => (
                percent_decode(&chunk[..eq]),
                Some(percent_decode(&chunk[eq + 1..])),
            ),
            None => (percent_decode(chunk), None),
        };
        items.push(item);
        rest = rest.get(end + 1..).unwrap_or_default();
    }
    items
}

fn percent_decode(bytes: &[u8]) -> Vec<u8> {
    let hex = |b: u8| (b as char).to_digit(16);
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => match (
                bytes.get(i + 1).copied().and_then(hex),
                bytes.get(i + 2).copied().and_then(hex),
            ) {
                (Some(high), Some(low)) => {
                    out.push((high * 16 + low) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    out
}

fn utf8(bytes: &[u8]) -> Result<&str, ApiError> {
    // PostgREST fails with a generic server error here (not a JSON error).
    std::str::from_utf8(bytes).map_err(|_| {
        ApiError::parse(
            "invalid UTF-8 in query string",
            "a percent-decoded query parameter key or value is not valid UTF-8",
        )
    })
}

/// Sorted by key (stable), same keys grouped as `k=v1,v2`, bytes ≥ 0x80 encoded as the
/// UTF-8 of the Latin-1 character (PostgREST double-encodes non-ASCII text).
fn canonical(items: &[RawItem]) -> String {
    let mut pairs: Vec<(&[u8], &[u8])> = items
        .iter()
        .map(|(key, value)| (key.as_slice(), value.as_deref().unwrap_or_default()))
        .collect();
    pairs.sort_by(|a, b| a.0.cmp(b.0));
    // Most bytes are copied as they are; a little room for the ones that get encoded.
    let length: usize = pairs
        .iter()
        .map(|(key, value)| key.len() + value.len() + 2)
        .sum();
    let mut out = String::with_capacity(length + length / 4);
    let mut previous: Option<&[u8]> = None;
    for (key, value) in pairs {
        if previous == Some(key) {
            out.push(',');
        } else {
            if previous.is_some() {
                out.push('&');
            }
            url_encode(key, &mut out);
            out.push('=');
            previous = Some(key);
        }
        url_encode(value, &mut out);
    }
    out
}

fn url_encode(bytes: &[u8], out: &mut String) {
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            const HEX: &[u8; 16] = b"0123456789ABCDEF";
            let mut utf8 = [0; 4];
            for &byte in char::from(b).encode_utf8(&mut utf8).as_bytes() {
                out.push('%');
                out.push(char::from(HEX[usize::from(byte >> 4)]));
                out.push(char::from(HEX[usize::from(byte & 0xF)]));
            }
        }
    }
}

/// The key's text after its last `.` (quotes not honoured, as in PostgREST).
fn last_segment(key: &str) -> &str {
    match key.bytes().rposition(|b| b == b'.') {
        Some(dot) => &key[dot + 1..],
        None => key,
    }
}

fn is_filter_key(key: &str) -> bool {
    !matches!(
        last_segment(key),
        "order" | "limit" | "offset" | "and" | "or"
    ) && !matches!(key, "select" | "columns" | "on_conflict")
}

// ---------------------------------------------------------------------------------------
// limit / offset

/// One `limit`-form key: for each kind, whether it was given and its last value.
struct RangeKey {
    key: String,
    limit: Option<Option<i64>>,
    offset: Option<Option<i64>>,
}

fn ranges(with_value: &[(&str, &[u8])]) -> Result<Vec<RangeParam>, ApiError> {
    // Per key (offset keys renamed to their `limit` form): the last value of each kind.
    let mut keys: Vec<RangeKey> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for &(key, value) in with_value {
        let is_limit = match last_segment(key) {
            "limit" => true,
            "offset" => false,
            _ => continue,
        };
        let limit_key = match key.rsplit_once('.') {
            Some((init, _)) => format!("{init}.limit"),
            None => "limit".to_owned(),
        };
        let slot = *index.entry(limit_key.clone()).or_insert_with(|| {
            keys.push(RangeKey {
                key: limit_key,
                limit: None,
                offset: None,
            });
            keys.len() - 1
        });
        let number = read_integer(utf8(value)?);
        if is_limit {
            keys[slot].limit = Some(number);
        } else {
            keys[slot].offset = Some(number);
        }
    }
    let mut ranges: Vec<RangeParam> = Vec::new();
    for RangeKey { key, limit, offset } in keys {
        let (path, _) = parse_tree_path(&key)?;
        let (limit, offset) = match (limit, offset) {
            (Some(limit), Some(offset)) => (Some(limit.unwrap_or(0)), offset),
            (limit, offset) => (limit.flatten(), offset.flatten()),
        };
        let range = RangeParam {
            path,
            limit,
            offset,
        };
        match ranges
            .iter_mut()
            .find(|existing| existing.path == range.path)
        {
            Some(existing) => *existing = range,
            None => ranges.push(range),
        }
    }
    Ok(ranges)
}

/// Haskell `readMaybe :: Maybe Integer`: optional spaces and parentheses, `-`, decimal,
/// `0x`/`0o` digits. Saturates at the `i64` bounds.
fn read_integer(text: &str) -> Option<i64> {
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    let skip = |at: &mut usize| {
        while chars.get(*at).is_some_and(|&c| parsec::is_space(c)) {
            *at += 1;
        }
    };
    skip(&mut at);
    let mut open = 0;
    while chars.get(at) == Some(&'(') {
        open += 1;
        at += 1;
        skip(&mut at);
    }
    let negative = chars.get(at) == Some(&'-');
    if negative {
        at += 1;
        skip(&mut at);
    }
    let base = match (chars.get(at), chars.get(at + 1), chars.get(at + 2)) {
        (Some('0'), Some('x' | 'X'), Some(c)) if c.is_ascii_hexdigit() => 16,
        (Some('0'), Some('o' | 'O'), Some(c)) if c.is_digit(8) => 8,
        _ => 10,
    };
    if base != 10 {
        at += 2;
    }
    let start = at;
    let mut value: i64 = 0;
    while let Some(d) = chars.get(at).and_then(|c| c.to_digit(base)) {
        value = value.saturating_mul(i64::from(base));
        value = if negative {
            value.saturating_sub(i64::from(d))
        } else {
            value.saturating_add(i64::from(d))
        };
        at += 1;
    }
    if at == start {
        return None;
    }
    for _ in 0..open {
        skip(&mut at);
        if chars.get(at) != Some(&')') {
            return None;
        }
        at += 1;
    }
    skip(&mut at);
    (at == chars.len()).then_some(value)
}

// ---------------------------------------------------------------------------------------
// Running a grammar

/// Runs `parser` on `text`; a failure becomes PGRST100 with parsec's rendering.
/// Runs `parser` over `text`; `source` names the parameter in the error (built only when
/// there is one).
fn run<T>(
    parser: impl Parser<T>,
    source: impl FnOnce() -> String,
    text: &str,
) -> Result<T, ApiError> {
    parsec::parse(parser, text).map_err(|error| {
        ApiError::parse(
            format!(
                "\"{}\" (line {}, column {})",
                source(),
                error.pos.line,
                error.pos.column
            ),
            parsec::strip(&error.render().replace('\n', " ")),
        )
    })
}

fn parse_tree_path(key: &str) -> Result<(EmbedPath, Field), ApiError> {
    if is_simple_column(key) {
        return Ok((Vec::new(), Field::column(key)));
    }
    run(
        tree_path,
        || format!("failed to parse tree path ({key})"),
        key,
    )
}

// ---------------------------------------------------------------------------------------
// Fast paths
//
// Most requests use the simplest forms of the grammar (`id=eq.5`, the same `select` again
// and again). These shortcuts give exactly what the full parser gives for those inputs
// (property-tested below) without running it; anything else goes to the full parser.

/// `[A-Za-z0-9_$]+`: a column name that needs no parsing.
fn is_simple_column(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// `op.value` with a comparison operator and no `not.`/quantifier: the value is the rest
/// of the text, verbatim.
fn simple_comparison(value: &str) -> Option<Operation> {
    let (name, rest) = value.split_once('.')?;
    let operator = SIMPLE_OPERATORS
        .iter()
        .chain(QUANTIFIABLE_OPERATORS)
        .find(|(candidate, _)| *candidate == name)
        .map(|(_, operator)| *operator)?;
    Some(Operation::Compare {
        operator,
        quantifier: None,
        value: rest.to_owned(),
    })
}

/// Parsed `select` values of this thread, by text: clients send the same few again and
/// again, and a nested select costs far more to parse than to copy.
const SELECT_CACHE_LIMIT: usize = 512;

thread_local! {
    static SELECT_CACHE: std::cell::RefCell<std::collections::HashMap<String, Vec<SelectItem>>> =
        std::cell::RefCell::new(std::collections::HashMap::new());
}

fn parse_select(text: &str) -> Result<Vec<SelectItem>, ApiError> {
    if text == "*" {
        return Ok(vec![SelectItem::Star]);
    }
    if let Some(hit) = SELECT_CACHE.with(|cache| cache.borrow().get(text).cloned()) {
        return Ok(hit);
    }
    let parsed = normalize_select(run(
        |input: &Input, state: State| select_forest(input, state, 0),
        || format!("failed to parse select parameter ({text})"),
        text,
    )?);
    SELECT_CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if cache.len() >= SELECT_CACHE_LIMIT {
            cache.clear();
        }
        cache.insert(text.to_owned(), parsed.clone());
    });
    Ok(parsed)
}

// ---------------------------------------------------------------------------------------
// Lexical helpers

const FIELD_NAME: &str = "field name (* or [a..z0..9_$])";

fn ws(input: &Input, state: State) -> Reply<()> {
    map(amany(one_of(&[' ', '\t'])), drop)(input, state)
}

fn lexeme<T>(parser: impl Parser<T>) -> impl Parser<T> {
    move |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        seq.run(input, ws)?;
        let value = seq.run(input, &parser)?;
        seq.run(input, ws)?;
        seq.done(value)
    }
}

fn delimiter(input: &Input, state: State) -> Reply<char> {
    label(char_('.'), "delimiter (.)")(input, state)
}

fn stripped(chars: Vec<char>) -> String {
    let text: String = chars.into_iter().collect();
    parsec::strip(&text).to_owned()
}

/// `"…"` where a backslash escapes any character.
fn quoted(input: &Input, state: State) -> Reply<String> {
    let escaped = |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        seq.run(input, char_('\\'))?;
        let c = seq.run(input, any_char())?;
        seq.done(c)
    };
    let mut seq = Seq::new(state);
    seq.run(input, char_('"'))?;
    let chars = seq.run(input, amany(alt(none_of(&['\\', '"']), escaped)))?;
    seq.run(input, char_('"'))?;
    seq.done(chars.into_iter().collect())
}

/// A quoted value only when directly followed by `,`, `)` or the end.
fn quoted_element(input: &Input, state: State) -> Reply<String> {
    let mut seq = Seq::new(state);
    let value = seq.run(input, quoted)?;
    seq.run(input, not_followed_by(none_of(&[',', ')'])))?;
    seq.done(value)
}

fn identifier(input: &Input, state: State) -> Reply<String> {
    map(
        many1(alts!(letter(), digit(), one_of(&['_', ' ', '$']))),
        stripped,
    )(input, state)
}

/// A `-` not followed by `>`.
fn dash(input: &Input, state: State) -> Reply<char> {
    try_(|input: &Input, state: State| {
        let mut seq = Seq::new(state);
        seq.run(input, char_('-'))?;
        seq.run(input, not_followed_by(char_('>')))?;
        seq.done('-')
    })(input, state)
}

fn sep_by_dash(piece: impl Parser<String>) -> impl Parser<String> {
    map(sep_by1(piece, dash), |pieces: Vec<String>| pieces.join("-"))
}

fn field_name(input: &Input, state: State) -> Reply<String> {
    label(alt(quoted, sep_by_dash(identifier)), FIELD_NAME)(input, state)
}

// ---------------------------------------------------------------------------------------
// JSON paths and fields

fn json_key_identifier(input: &Input, state: State) -> Reply<String> {
    map(
        many1(none_of(&['(', '-', ':', '.', ',', '>', ')'])),
        stripped,
    )(input, state)
}

fn json_key_name(input: &Input, state: State) -> Reply<String> {
    label(
        alt(quoted, sep_by_dash(json_key_identifier)),
        "any non reserved character different from: .,>()",
    )(input, state)
}

fn json_end(input: &Input, state: State) -> Reply<()> {
    alts!(
        map(try_(look_ahead(string("->"))), drop),
        map(try_(look_ahead(string("::"))), drop),
        map(try_(look_ahead(string("."))), drop),
        map(try_(look_ahead(string(","))), drop),
        try_(eof),
    )(input, state)
}

fn json_index(input: &Input, state: State) -> Reply<i64> {
    let mut seq = Seq::new(state);
    let sign = seq.run(input, option('+', char_('-')))?;
    let digits = seq.run(input, many1(digit()))?;
    seq.run(input, json_end)?;
    let mut value: i64 = 0;
    for d in digits.iter().filter_map(|c| c.to_digit(10)) {
        value = value.saturating_mul(10);
        value = if sign == '-' {
            value.saturating_sub(i64::from(d))
        } else {
            value.saturating_add(i64::from(d))
        };
    }
    seq.done(value)
}

fn json_step(input: &Input, state: State) -> Reply<JsonStep> {
    let arrow = alt(
        map(try_(string("->>")), |_| true),
        map(try_(string("->")), |_| false),
    );
    let operand = alt(
        map(try_(json_index), JsonKey::Index),
        map(try_(json_key_name), JsonKey::Key),
    );
    let mut seq = Seq::new(state);
    let double = seq.run(input, arrow)?;
    let key = seq.run(input, operand)?;
    seq.done(if double {
        JsonStep::DoubleArrow(key)
    } else {
        JsonStep::Arrow(key)
    })
}

fn json_path(input: &Input, state: State) -> Reply<Vec<JsonStep>> {
    amany(json_step)(input, state)
}

fn field(input: &Input, state: State) -> Reply<Field> {
    lexeme(|input: &Input, state: State| {
        let mut seq = Seq::new(state);
        let name = seq.run(input, field_name)?;
        let json_path = seq.run(input, option(Vec::new(), json_path))?;
        seq.done(Field { name, json_path })
    })(input, state)
}

/// Filter, order and range keys: `embed.path.field->json`; trailing text is ignored.
fn tree_path(input: &Input, state: State) -> Reply<(EmbedPath, Field)> {
    let mut seq = Seq::new(state);
    let mut names = seq.run(input, sep_by1(field_name, delimiter))?;
    let json_path = seq.run(input, option(Vec::new(), json_path))?;
    let name = names.pop().unwrap_or_default();
    seq.done((names, Field { name, json_path }))
}

fn logic_path(input: &Input, state: State) -> Reply<Vec<String>> {
    sep_by1(field_name, delimiter)(input, state)
}

fn column_list(input: &Input, state: State) -> Reply<Vec<String>> {
    sep_by1(field_name, lexeme(char_(',')))(input, state)
}

// ---------------------------------------------------------------------------------------
// select

fn select_forest(input: &Input, state: State, depth: usize) -> Reply<Vec<SelectItem>> {
    sep_by(
        |input: &Input, state: State| select_tree(input, state, depth),
        lexeme(char_(',')),
    )(input, state)
}

/// `(…)` after an embed header; `depth` is the nesting level of its items.
fn embed_children(input: &Input, state: State, depth: usize) -> Reply<Vec<SelectItem>> {
    let mut seq = Seq::new(state);
    seq.apply(char_('(')(input, state))?;
    if depth > MAX_NESTING {
        return input.abort(seq.state(), NESTING_MESSAGE);
    }
    let items = seq.apply(select_forest(input, seq.state(), depth))?;
    seq.apply(char_(')')(input, seq.state()))?;
    seq.done(items)
}

/// `try(spreadHeader) ; children  <|>  try(relationHeader) ; children  <|>  fieldSelect`
/// (written with direct calls: this is the recursive path).
fn select_tree(input: &Input, state: State, depth: usize) -> Reply<SelectItem> {
    or_else(embed(input, state, depth, true), || {
        or_else(embed(input, state, depth, false), || {
            field_select(input, state)
        })
    })
}

fn embed(input: &Input, state: State, depth: usize, spread: bool) -> Reply<SelectItem> {
    let mut seq = Seq::new(state);
    let (alias, relation, hint, join) = if spread {
        let (relation, hint, join) = seq.apply(try_(spread_header)(input, state))?;
        (None, relation, hint, join)
    } else {
        seq.apply(try_(relation_header)(input, state))?
    };
    let select = seq.apply(embed_children(input, seq.state(), depth + 1))?;
    seq.done(SelectItem::Embed(Embed {
        relation,
        alias,
        hint,
        join,
        spread,
        select,
    }))
}

/// `alias:` (a single colon).
fn alias_prefix(input: &Input, state: State) -> Reply<Option<String>> {
    option_maybe(try_(|input: &Input, state: State| {
        let mut seq = Seq::new(state);
        let name = seq.run(input, field_name)?;
        seq.run(input, char_(':'))?;
        seq.run(input, not_followed_by(char_(':')))?;
        seq.done(name)
    }))(input, state)
}

type Header = (Option<String>, String, Option<String>, Option<JoinType>);

#[inline(never)]
fn relation_header(input: &Input, state: State) -> Reply<Header> {
    lexeme(|input: &Input, state: State| {
        let mut seq = Seq::new(state);
        let alias = seq.run(input, alias_prefix)?;
        let name = seq.run(input, field_name)?;
        if name == "count" {
            seq.run(input, fail0::<()>)?;
        }
        let (hint, join) = seq.run(input, embed_params)?;
        seq.run(input, try_(look_ahead(string("("))))?;
        seq.done((alias, name, hint, join))
    })(input, state)
}

#[inline(never)]
fn spread_header(input: &Input, state: State) -> Reply<(String, Option<String>, Option<JoinType>)> {
    lexeme(|input: &Input, state: State| {
        let mut seq = Seq::new(state);
        seq.run(input, string("..."))?;
        let name = seq.run(input, field_name)?;
        let (hint, join) = seq.run(input, embed_params)?;
        seq.run(input, try_(look_ahead(string("("))))?;
        seq.done((name, hint, join))
    })(input, state)
}

enum EmbedParam {
    Join(JoinType),
    Hint(String),
}

fn embed_param(input: &Input, state: State) -> Reply<EmbedParam> {
    let mut seq = Seq::new(state);
    seq.run(input, char_('!'))?;
    let param = seq.run(
        input,
        alts!(
            map(try_(string("left")), |_| EmbedParam::Join(JoinType::Left)),
            map(try_(string("inner")), |_| EmbedParam::Join(JoinType::Inner)),
            map(try_(field_name), EmbedParam::Hint),
        ),
    )?;
    seq.done(param)
}

/// Up to two `!` params: the first hint and the first join type among them.
fn embed_params(input: &Input, state: State) -> Reply<(Option<String>, Option<JoinType>)> {
    let mut seq = Seq::new(state);
    let first = seq.run(input, option_maybe(embed_param))?;
    let second = seq.run(input, option_maybe(embed_param))?;
    let (mut hint, mut join) = (None, None);
    for param in [first, second].into_iter().flatten() {
        match param {
            EmbedParam::Hint(name) => {
                hint.get_or_insert(name);
            }
            EmbedParam::Join(kind) => {
                join.get_or_insert(kind);
            }
        }
    }
    seq.done((hint, join))
}

fn select_end(input: &Input, state: State) -> Reply<()> {
    alts!(
        map(try_(look_ahead(string(")"))), drop),
        map(try_(look_ahead(string(","))), drop),
        try_(eof),
    )(input, state)
}

fn cast_suffix(input: &Input, state: State) -> Reply<String> {
    let mut seq = Seq::new(state);
    seq.run(input, string("::"))?;
    let name = seq.run(input, identifier)?;
    seq.done(name)
}

fn aggregate_name(input: &Input, state: State) -> Reply<Aggregate> {
    alts!(
        map(string("sum"), |_| Aggregate::Sum),
        map(string("avg"), |_| Aggregate::Avg),
        map(string("count"), |_| Aggregate::Count),
        map(try_(string("max")), |_| Aggregate::Max),
        map(try_(string("min")), |_| Aggregate::Min),
    )(input, state)
}

#[inline(never)]
fn field_select(input: &Input, state: State) -> Reply<SelectItem> {
    let star = |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        seq.run(input, string("*"))?;
        seq.run(input, select_end)?;
        seq.done(SelectItem::Star)
    };
    let count = |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        let alias = seq.run(input, alias_prefix)?;
        seq.run(input, string("count()"))?;
        let cast = seq.run(input, option_maybe(cast_suffix))?;
        seq.run(input, select_end)?;
        seq.done(SelectItem::Count { alias, cast })
    };
    let column = |input: &Input, state: State| {
        let aggregate = |input: &Input, state: State| {
            let mut seq = Seq::new(state);
            seq.run(input, char_('.'))?;
            let name = seq.run(input, aggregate_name)?;
            seq.run(input, string("()"))?;
            seq.done(name)
        };
        let mut seq = Seq::new(state);
        let alias = seq.run(input, alias_prefix)?;
        let field = seq.run(input, field)?;
        let cast = seq.run(input, option_maybe(cast_suffix))?;
        let aggregate = seq.run(input, option_maybe(try_(aggregate)))?;
        let aggregate_cast = seq.run(input, option_maybe(cast_suffix))?;
        seq.run(input, select_end)?;
        seq.done(SelectItem::Field {
            field,
            alias,
            cast,
            aggregate,
            aggregate_cast,
        })
    };
    lexeme(alts!(try_(star), try_(count), column))(input, state)
}

/// PostgREST treats a field named `*` as the star: `"*"` is `*`, `"*".count()` is
/// `count()`.
fn normalize_select(items: Vec<SelectItem>) -> Vec<SelectItem> {
    items
        .into_iter()
        .map(|item| match item {
            SelectItem::Field {
                field,
                alias: None,
                cast: None,
                aggregate: None,
                aggregate_cast: None,
            } if field.name == "*" && field.json_path.is_empty() => SelectItem::Star,
            SelectItem::Field {
                field,
                alias,
                cast: None,
                aggregate: Some(Aggregate::Count),
                aggregate_cast,
            } if field.name == "*" && field.json_path.is_empty() => SelectItem::Count {
                alias,
                cast: aggregate_cast,
            },
            SelectItem::Embed(mut embed) => {
                embed.select = normalize_select(embed.select);
                SelectItem::Embed(embed)
            }
            other => other,
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Filters (operator expressions)

/// Alternatives `try (string w)` over a table of keywords.
fn keywords<V: Copy>(table: &'static [(&'static str, V)]) -> impl Parser<V> {
    move |input: &Input, state: State| {
        let mut error: Option<parsec::ParseError> = None;
        for &(word, value) in table {
            match string(word)(input, state) {
                Ok(success) => {
                    return Ok(parsec::Success {
                        value,
                        state: success.state,
                        error: success.error,
                        consumed: success.consumed,
                    });
                }
                Err(failure) => {
                    error = Some(match error {
                        Some(previous) => previous.merge(failure.error),
                        None => failure.error,
                    });
                }
            }
        }
        Err(parsec::Failure {
            error: error.unwrap_or_else(|| parsec::ParseError::unknown(state.pos)),
            consumed: false,
        })
    }
}

const SIMPLE_OPERATORS: &[(&str, Operator)] = &[
    ("neq", Operator::Neq),
    ("cs", Operator::Contains),
    ("cd", Operator::ContainedIn),
    ("ov", Operator::Overlap),
    ("sl", Operator::StrictlyLeft),
    ("sr", Operator::StrictlyRight),
    ("nxr", Operator::NotExtendRight),
    ("nxl", Operator::NotExtendLeft),
    ("adj", Operator::Adjacent),
];

const QUANTIFIABLE_OPERATORS: &[(&str, Operator)] = &[
    ("eq", Operator::Eq),
    ("gte", Operator::Gte),
    ("gt", Operator::Gt),
    ("lte", Operator::Lte),
    ("lt", Operator::Lt),
    ("like", Operator::Like),
    ("ilike", Operator::Ilike),
    ("match", Operator::Match),
    ("imatch", Operator::Imatch),
];

const FTS_OPERATORS: &[(&str, FtsOperator)] = &[
    ("fts", FtsOperator::Fts),
    ("plfts", FtsOperator::Plain),
    ("phfts", FtsOperator::Phrase),
    ("wfts", FtsOperator::Websearch),
];

/// `word.`
fn keyword_dot(word: &'static str) -> impl Parser<()> {
    move |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        seq.run(input, string(word))?;
        seq.run(input, delimiter)?;
        seq.done(())
    }
}

/// `[not.]operation`, with `value` reading the text after the operator.
fn op_expr<V: Parser<String> + Copy>(value: V) -> impl Parser<(bool, Operation)> {
    move |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        let negated = seq.run(
            input,
            alt(map(try_(keyword_dot("not")), |_| true), ret(false)),
        )?;
        let operation = seq.run(input, operation(value))?;
        seq.done((negated, operation))
    }
}

fn operation<V: Parser<String> + Copy>(value: V) -> impl Parser<Operation> {
    let in_list = |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        seq.run(input, try_(keyword_dot("in")))?;
        let list = seq.run(input, list_value)?;
        seq.done(Operation::In(list))
    };
    let is = |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        seq.run(input, try_(keyword_dot("is")))?;
        let value = seq.run(input, is_value)?;
        seq.done(Operation::Is(value))
    };
    let is_distinct = move |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        seq.run(input, try_(keyword_dot("isdistinct")))?;
        let value = seq.run(input, value)?;
        seq.done(Operation::Compare {
            operator: Operator::IsDistinct,
            quantifier: None,
            value,
        })
    };
    let fts = move |input: &Input, state: State| {
        let language = try_(between(char_('('), char_(')'), identifier));
        let mut seq = Seq::new(state);
        let operator = seq.run(input, keywords(FTS_OPERATORS))?;
        let language = seq.run(input, option_maybe(language))?;
        seq.run(input, delimiter)?;
        let value = seq.run(input, value)?;
        seq.done(Operation::Fts {
            operator,
            language,
            value,
        })
    };
    let simple = move |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        let operator = seq.run(
            input,
            label(keywords(SIMPLE_OPERATORS), "unknown single value operator"),
        )?;
        seq.run(input, delimiter)?;
        let value = seq.run(input, value)?;
        seq.done(Operation::Compare {
            operator,
            quantifier: None,
            value,
        })
    };
    let quantified = move |input: &Input, state: State| {
        let quantifier = try_(between(
            char_('('),
            char_(')'),
            alt(
                map(try_(string("any")), |_| Quantifier::Any),
                map(string("all"), |_| Quantifier::All),
            ),
        ));
        let mut seq = Seq::new(state);
        let operator = seq.run(
            input,
            label(
                keywords(QUANTIFIABLE_OPERATORS),
                "unknown single value operator",
            ),
        )?;
        let quantifier = seq.run(input, option_maybe(quantifier))?;
        seq.run(input, delimiter)?;
        let value = seq.run(input, value)?;
        seq.done(Operation::Compare {
            operator,
            quantifier,
            value,
        })
    };
    label(
        alts!(
            in_list,
            is,
            is_distinct,
            try_(fts),
            try_(simple),
            try_(quantified)
        ),
        "operator (eq, gt, ...)",
    )
}

/// Case-insensitive (per character, ASCII) keyword.
fn ci(word: &'static str) -> impl Parser<()> {
    move |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        for c in word.chars() {
            seq.run(input, alt(char_(c), char_(c.to_ascii_uppercase())))?;
        }
        seq.done(())
    }
}

fn is_value(input: &Input, state: State) -> Reply<IsValue> {
    label(
        alts!(
            map(try_(ci("null")), |_| IsValue::Null),
            map(try_(ci("not_null")), |_| IsValue::NotNull),
            map(try_(ci("true")), |_| IsValue::True),
            map(try_(ci("false")), |_| IsValue::False),
            map(try_(ci("unknown")), |_| IsValue::Unknown),
        ),
        "isVal: (null, not_null, true, false, unknown)",
    )(input, state)
}

/// The rest of the text, verbatim.
fn single_value(input: &Input, state: State) -> Reply<String> {
    map(amany(any_char()), |chars: Vec<char>| {
        chars.into_iter().collect()
    })(input, state)
}

fn unquoted_element(input: &Input, state: State) -> Reply<String> {
    map(amany(none_of(&[',', ')'])), |chars: Vec<char>| {
        chars.into_iter().collect()
    })(input, state)
}

fn list_value(input: &Input, state: State) -> Reply<Vec<String>> {
    let mut seq = Seq::new(state);
    seq.run(input, lexeme(char_('(')))?;
    let elements = seq.run(
        input,
        sep_by1(alt(try_(quoted_element), unquoted_element), char_(',')),
    )?;
    seq.run(input, lexeme(char_(')')))?;
    seq.done(elements)
}

// ---------------------------------------------------------------------------------------
// Logic trees

/// `try(logicFilter) <|> node` (written with direct calls: this is the recursive path).
fn logic_tree(input: &Input, state: State, depth: usize) -> Reply<LogicTree> {
    let leaf = try_(logic_filter)(input, state).map(|success| parsec::Success {
        value: LogicTree::Leaf(success.value),
        state: success.state,
        error: success.error,
        consumed: success.consumed,
    });
    or_else(leaf, || logic_node(input, state, depth))
}

/// `[not.](and|or)(tree, …)`.
fn logic_node(input: &Input, state: State, depth: usize) -> Reply<LogicTree> {
    let mut seq = Seq::new(state);
    let (negated, operator) = seq.apply(logic_node_header(input, state))?;
    seq.apply(lexeme(char_('('))(input, seq.state()))?;
    if depth >= MAX_NESTING {
        return input.abort(seq.state(), NESTING_MESSAGE);
    }
    let children = seq.apply(sep_by1(
        |input: &Input, state: State| logic_tree(input, state, depth + 1),
        lexeme(char_(',')),
    )(input, seq.state()))?;
    seq.apply(lexeme(char_(')'))(input, seq.state()))?;
    seq.done(LogicTree::Node {
        negated,
        operator,
        children,
    })
}

#[inline(never)]
fn logic_node_header(input: &Input, state: State) -> Reply<(bool, LogicOperator)> {
    let negation = label(
        alt(map(try_(keyword_dot("not")), |_| true), ret(false)),
        "negation operator (not)",
    );
    let operator = label(
        alt(
            map(try_(string("and")), |_| LogicOperator::And),
            map(string("or"), |_| LogicOperator::Or),
        ),
        "logic operator (and, or)",
    );
    let mut seq = Seq::new(state);
    let negated = seq.apply(negation(input, state))?;
    let operator = seq.apply(operator(input, seq.state()))?;
    seq.done((negated, operator))
}

#[inline(never)]
fn logic_filter(input: &Input, state: State) -> Reply<Filter> {
    let mut seq = Seq::new(state);
    let field = seq.run(input, field)?;
    seq.run(input, delimiter)?;
    let (negated, operation) = seq.run(input, op_expr(logic_value))?;
    seq.done(Filter {
        field,
        negated,
        operation,
    })
}

/// A value inside a logic tree: quoted, a `{…}` array literal, or up to `,`/`)`.
fn logic_value(input: &Input, state: State) -> Reply<String> {
    let array = |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        seq.run(input, string("{"))?;
        let inner: String = seq
            .run(input, amany(none_of(&['{', '}'])))?
            .into_iter()
            .collect();
        seq.run(input, string("}"))?;
        seq.done(format!("{{{inner}}}"))
    };
    alts!(try_(quoted_element), try_(array), unquoted_element)(input, state)
}

// ---------------------------------------------------------------------------------------
// order

fn order_terms(input: &Input, state: State) -> Reply<Vec<OrderTerm>> {
    sep_by1(
        lexeme(alt(try_(related_order_term), order_term)),
        char_(','),
    )(input, state)
}

fn order_end(input: &Input, state: State) -> Reply<()> {
    alt(map(try_(look_ahead(char_(','))), drop), try_(eof))(input, state)
}

/// `[.asc|.desc]` then `[.nullsfirst|.nullslast]` then `,` or the end.
fn order_modifiers(input: &Input, state: State) -> Reply<(Option<Direction>, Option<Nulls>)> {
    let after_dot = |word: &'static str| {
        try_(move |input: &Input, state: State| {
            let mut seq = Seq::new(state);
            seq.run(input, delimiter)?;
            seq.run(input, string(word))?;
            seq.done(())
        })
    };
    let direction = alt(
        map(after_dot("asc"), |_| Direction::Asc),
        map(after_dot("desc"), |_| Direction::Desc),
    );
    let nulls = alt(
        map(after_dot("nullsfirst"), |_| Nulls::First),
        map(after_dot("nullslast"), |_| Nulls::Last),
    );
    let nulls_then_end = |input: &Input, state: State| {
        let mut seq = Seq::new(state);
        let nulls = seq.run(input, option_maybe(&nulls))?;
        seq.run(input, order_end)?;
        seq.done(nulls)
    };
    let mut seq = Seq::new(state);
    let direction = seq.run(input, option_maybe(direction))?;
    let nulls = seq.run(input, alt(nulls_then_end, map(order_end, |_| None)))?;
    seq.done((direction, nulls))
}

fn order_term(input: &Input, state: State) -> Reply<OrderTerm> {
    let mut seq = Seq::new(state);
    let field = seq.run(input, field)?;
    let (direction, nulls) = seq.run(input, order_modifiers)?;
    seq.done(OrderTerm {
        target: OrderTarget::Field(field),
        direction,
        nulls,
    })
}

fn related_order_term(input: &Input, state: State) -> Reply<OrderTerm> {
    let mut seq = Seq::new(state);
    let relation = seq.run(input, field_name)?;
    let field = seq.run(input, between(char_('('), char_(')'), field))?;
    let (direction, nulls) = seq.run(input, order_modifiers)?;
    seq.done(OrderTerm {
        target: OrderTarget::Related { relation, field },
        direction,
        nulls,
    })
}

// ---------------------------------------------------------------------------------------
// Printers

fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// Whether `name` reads back as itself unquoted: dash-separated pieces of letters,
/// digits, `_` and `$`.
fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|piece| {
            !piece.is_empty()
                && piece
                    .chars()
                    .all(|c| parsec::is_letter(c) || c.is_ascii_digit() || c == '_' || c == '$')
        })
}

fn print_name(name: &str) -> String {
    if is_plain_name(name) {
        name.to_owned()
    } else {
        quote(name)
    }
}

fn print_json_key(key: &JsonKey) -> String {
    match key {
        JsonKey::Index(index) => index.to_string(),
        JsonKey::Key(key) => {
            let plain = !key.is_empty()
                && !key.starts_with('"')
                && !key.chars().any(|c| "(-:.,>)".contains(c))
                && parsec::strip(key) == key
                && !key.chars().all(|c| c.is_ascii_digit());
            if plain { key.clone() } else { quote(key) }
        }
    }
}

fn print_field(field: &Field) -> String {
    let mut out = print_name(&field.name);
    for step in &field.json_path {
        out.push_str(match step {
            JsonStep::Arrow(_) => "->",
            JsonStep::DoubleArrow(_) => "->>",
        });
        out.push_str(&print_json_key(step.key()));
    }
    out
}

fn print_cast(cast: &Option<String>) -> String {
    cast.as_ref()
        .map(|cast| format!("::{cast}"))
        .unwrap_or_default()
}

fn print_alias(alias: &Option<String>) -> String {
    alias
        .as_ref()
        .map(|alias| format!("{}:", print_name(alias)))
        .unwrap_or_default()
}

/// `select` text. Not representable (the grammar cannot produce them): an embed named
/// `count` that is not a spread, an alias on a spread, an `aggregate_cast` without a cast
/// or an aggregate, casts or languages that are not identifiers, and a JSON index as the
/// last step of the last item inside `(...)` (it reads back as a key).
pub fn print_select(items: &[SelectItem]) -> String {
    items
        .iter()
        .map(print_select_item)
        .collect::<Vec<_>>()
        .join(",")
}

fn print_select_item(item: &SelectItem) -> String {
    match item {
        SelectItem::Star => "*".to_owned(),
        SelectItem::Field {
            field,
            alias,
            cast,
            aggregate,
            aggregate_cast,
        } => format!(
            "{}{}{}{}{}",
            print_alias(alias),
            print_field(field),
            print_cast(cast),
            aggregate
                .map(|aggregate| format!(".{}()", aggregate.name()))
                .unwrap_or_default(),
            print_cast(aggregate_cast)
        ),
        SelectItem::Count { alias, cast } => {
            format!("{}count(){}", print_alias(alias), print_cast(cast))
        }
        SelectItem::Embed(embed) => {
            let mut out = if embed.spread {
                "...".to_owned()
            } else {
                print_alias(&embed.alias)
            };
            out.push_str(&print_name(&embed.relation));
            if let Some(hint) = &embed.hint {
                out.push('!');
                if is_plain_name(hint) && !hint.starts_with("left") && !hint.starts_with("inner") {
                    out.push_str(hint);
                } else {
                    out.push_str(&quote(hint));
                }
            }
            match embed.join {
                Some(JoinType::Left) => out.push_str("!left"),
                Some(JoinType::Inner) => out.push_str("!inner"),
                None => {}
            }
            out.push('(');
            out.push_str(&print_select(&embed.select));
            out.push(')');
            out
        }
    }
}

fn print_list_element(element: &str, first: bool) -> String {
    let needs_quotes = element.contains([',', ')'])
        || element.starts_with('"')
        || (first && element.starts_with([' ', '\t']));
    if needs_quotes {
        quote(element)
    } else {
        element.to_owned()
    }
}

fn print_logic_value(value: &str) -> String {
    let plain = !value.contains([',', ')']) && !value.starts_with(['"', '{']);
    if plain {
        value.to_owned()
    } else {
        quote(value)
    }
}

fn print_operation(negated: bool, operation: &Operation, in_logic: bool) -> String {
    let value = |value: &str| {
        if in_logic {
            print_logic_value(value)
        } else {
            value.to_owned()
        }
    };
    let text = match operation {
        Operation::Compare {
            operator,
            quantifier,
            value: text,
        } => {
            let quantifier = match quantifier {
                Some(Quantifier::Any) if operator.quantifiable() => "(any)",
                Some(Quantifier::All) if operator.quantifiable() => "(all)",
                _ => "",
            };
            format!("{}{quantifier}.{}", operator.name(), value(text))
        }
        Operation::In(elements) => {
            let elements: Vec<String> = elements
                .iter()
                .enumerate()
                .map(|(n, element)| print_list_element(element, n == 0))
                .collect();
            format!("in.({})", elements.join(","))
        }
        Operation::Is(is) => format!(
            "is.{}",
            match is {
                IsValue::Null => "null",
                IsValue::NotNull => "not_null",
                IsValue::True => "true",
                IsValue::False => "false",
                IsValue::Unknown => "unknown",
            }
        ),
        Operation::Fts {
            operator,
            language,
            value: text,
        } => format!(
            "{}{}.{}",
            operator.name(),
            language
                .as_ref()
                .map(|l| format!("({l})"))
                .unwrap_or_default(),
            value(text)
        ),
    };
    if negated { format!("not.{text}") } else { text }
}

/// The key (for a root filter; prefix embed names with `.` for others) and the value.
/// Columns named like reserved keys (`order`, `or`, `select`, …) are quoted.
pub fn print_filter(filter: &Filter) -> (String, String) {
    let name = &filter.field.name;
    let reserved = matches!(
        name.as_str(),
        "order" | "limit" | "offset" | "and" | "or" | "select" | "columns" | "on_conflict"
    );
    let key = if reserved && filter.field.json_path.is_empty() {
        quote(name)
    } else {
        print_field(&filter.field)
    };
    (
        key,
        print_operation(filter.negated, &filter.operation, false),
    )
}

/// The value of an `and=`/`or=` key: `(child,…)`; the key is the root node's operator
/// (`not.and`, `or`, …). A leaf (only produced by PostgREST's `or=id.eq.1` →
/// `orid.eq.1` quirk) prints as the bare condition.
pub fn print_logic(tree: &LogicTree) -> String {
    match tree {
        LogicTree::Node { children, .. } => format!(
            "({})",
            children
                .iter()
                .map(print_logic_child)
                .collect::<Vec<_>>()
                .join(",")
        ),
        LogicTree::Leaf(_) => print_logic_child(tree),
    }
}

fn print_logic_child(tree: &LogicTree) -> String {
    match tree {
        LogicTree::Node {
            negated,
            operator,
            children: _,
        } => format!(
            "{}{}{}",
            if *negated { "not." } else { "" },
            match operator {
                LogicOperator::And => "and",
                LogicOperator::Or => "or",
            },
            print_logic(tree)
        ),
        LogicTree::Leaf(filter) => format!(
            "{}.{}",
            print_field(&filter.field),
            print_operation(filter.negated, &filter.operation, true)
        ),
    }
}

/// `order` text. A JSON index as the last step inside `relation(...)` is not
/// representable (it reads back as a key).
pub fn print_order(terms: &[OrderTerm]) -> String {
    terms
        .iter()
        .map(|term| {
            let mut out = match &term.target {
                OrderTarget::Field(field) => print_field(field),
                OrderTarget::Related { relation, field } => {
                    format!("{}({})", print_name(relation), print_field(field))
                }
            };
            match term.direction {
                Some(Direction::Asc) => out.push_str(".asc"),
                Some(Direction::Desc) => out.push_str(".desc"),
                None => {}
            }
            match term.nulls {
                Some(Nulls::First) => out.push_str(".nullsfirst"),
                Some(Nulls::Last) => out.push_str(".nullslast"),
                None => {}
            }
            out
        })
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Percent-encodes everything but unreserved characters.
    fn enc(text: &str) -> String {
        let mut out = String::new();
        for &b in text.as_bytes() {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    }

    fn query(pairs: &[(&str, &str)]) -> String {
        pairs
            .iter()
            .map(|(k, v)| format!("{}={}", enc(k), enc(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    fn ok(raw: &str) -> QueryParams {
        QueryParams::parse(raw, ParseMode::Relation).unwrap_or_else(|e| panic!("{raw}: {e:?}"))
    }

    fn ok_pairs(pairs: &[(&str, &str)]) -> QueryParams {
        ok(&query(pairs))
    }

    fn err_in(raw: &str, mode: ParseMode) -> (String, String) {
        match QueryParams::parse(raw, mode) {
            Err(ApiError::Parse { message, details }) => (message, details),
            other => panic!("{raw}: expected a parse error, got {other:?}"),
        }
    }

    fn err_pairs(pairs: &[(&str, &str)]) -> (String, String) {
        err_in(&query(pairs), ParseMode::Relation)
    }

    fn select(text: &str) -> Vec<SelectItem> {
        ok_pairs(&[("select", text)]).select
    }

    fn col(name: &str) -> Field {
        Field::column(name)
    }

    fn json(name: &str, steps: Vec<JsonStep>) -> Field {
        Field {
            name: name.into(),
            json_path: steps,
        }
    }

    fn key(k: &str) -> JsonKey {
        JsonKey::Key(k.into())
    }

    fn item(name: &str) -> SelectItem {
        field_item(col(name))
    }

    fn field_item(field: Field) -> SelectItem {
        SelectItem::Field {
            field,
            alias: None,
            cast: None,
            aggregate: None,
            aggregate_cast: None,
        }
    }

    fn embed(relation: &str, select: Vec<SelectItem>) -> Embed {
        Embed {
            relation: relation.into(),
            alias: None,
            hint: None,
            join: None,
            spread: false,
            select,
        }
    }

    fn compare(operator: Operator, value: &str) -> Operation {
        Operation::Compare {
            operator,
            quantifier: None,
            value: value.into(),
        }
    }

    fn filter(name: &str, operation: Operation) -> Filter {
        Filter {
            field: col(name),
            negated: false,
            operation,
        }
    }

    fn filter_value(value: &str) -> (bool, Operation) {
        let params = ok_pairs(&[("x", value)]);
        assert_eq!(params.filters.len(), 1, "{value}");
        let filter = params.filters[0].1.clone();
        (filter.negated, filter.operation)
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    // ------------------------------------------------------------------------------
    // §5: every PGRST100 example, exact message and details.

    #[test]
    fn spec_error_table() {
        let any_name = "field name (* or [a..z0..9_$])";
        let logic_start = "unexpected \")\" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)";
        let select_start = r#"expecting "...", field name (* or [a..z0..9_$]), "*" or "count()""#;
        let cases: Vec<(&str, &str, String, String)> = vec![
            ("order", "id.asc.nullslasttt", "order (id.asc.nullslasttt)\" (line 1, column 17)".into(), r#"unexpected 't' expecting "," or end of input"#.into()),
            ("order", "id.ac", "order (id.ac)\" (line 1, column 4)".into(), r#"unexpected "c" expecting "asc", "desc", "nullsfirst" or "nullslast""#.into()),
            ("order", "id.descc", "order (id.descc)\" (line 1, column 8)".into(), r#"unexpected 'c' expecting delimiter (.), "," or end of input"#.into()),
            ("order", "id.asc.nlsfst", "order (id.asc.nlsfst)\" (line 1, column 8)".into(), r#"unexpected "l" expecting "nullsfirst" or "nullslast""#.into()),
            ("order", "clients(name,id)", "order (clients(name,id))\" (line 1, column 8)".into(), r#"unexpected '(' expecting letter, digit, "-", "->>", "->", delimiter (.), "," or end of input"#.into()),
            ("order", "", "order ()\" (line 1, column 1)".into(), format!("unexpected end of input expecting {any_name}")),
            ("order", "id.nullsfirst.desc", "order (id.nullsfirst.desc)\" (line 1, column 14)".into(), r#"unexpected '.' expecting "," or end of input"#.into()),
            ("id", "0", "filter (0)\" (line 1, column 1)".into(), r#"unexpected "0" expecting "not" or operator (eq, gt, ...)"#.into()),
            ("a.b", "noop.0", "filter (noop.0)\" (line 1, column 1)".into(), r#"unexpected "o" expecting "not" or operator (eq, gt, ...)"#.into()),
            ("id", "", "filter ()\" (line 1, column 1)".into(), r#"unexpected end of input expecting "not" or operator (eq, gt, ...)"#.into()),
            ("id", "eq", "filter (eq)\" (line 1, column 3)".into(), "unexpected end of input expecting operator (eq, gt, ...)".into()),
            ("id", "not.eq", "filter (not.eq)\" (line 1, column 7)".into(), "unexpected end of input expecting operator (eq, gt, ...)".into()),
            ("id", "not.not.eq.1", "filter (not.not.eq.1)\" (line 1, column 5)".into(), r#"unexpected "n" expecting operator (eq, gt, ...)"#.into()),
            ("id", "EQ.1", "filter (EQ.1)\" (line 1, column 1)".into(), r#"unexpected "E" expecting "not" or operator (eq, gt, ...)"#.into()),
            ("id", "in.1,2", "filter (in.1,2)\" (line 1, column 4)".into(), r#"unexpected "1" expecting "(""#.into()),
            ("id", "in.(1,2", "filter (in.(1,2)\" (line 1, column 8)".into(), r#"unexpected end of input expecting "," or ")""#.into()),
            ("id", "is.nil", "filter (is.nil)\" (line 1, column 5)".into(), r#"unexpected "i" expecting isVal: (null, not_null, true, false, unknown)"#.into()),
            ("id", "is.", "filter (is.)\" (line 1, column 4)".into(), "unexpected end of input expecting isVal: (null, not_null, true, false, unknown)".into()),
            ("id", "fts().a", "filter (fts().a)\" (line 1, column 5)".into(), r#"unexpected ")" expecting operator (eq, gt, ...)"#.into()),
            ("id", "eq(some).{1}", "filter (eq(some).{1})\" (line 1, column 4)".into(), r#"unexpected "s" expecting operator (eq, gt, ...)"#.into()),
            ("id", "neq(any).{1}", "filter (neq(any).{1})\" (line 1, column 4)".into(), r#"unexpected "(" expecting operator (eq, gt, ...)"#.into()),
            ("id", "€", "filter (€)\" (line 1, column 1)".into(), r#"unexpected "\8364" expecting "not" or operator (eq, gt, ...)"#.into()),
            ("or", "()", "logic tree (())\" (line 1, column 4)".into(), logic_start.into()),
            ("not.or", "()", "logic tree (())\" (line 1, column 8)".into(), logic_start.into()),
            ("or", "(a.eq.1,)", "logic tree ((a.eq.1,))\" (line 1, column 11)".into(), logic_start.into()),
            ("or", "(id.eq.1,id.eq.2", "logic tree ((id.eq.1,id.eq.2)\" (line 1, column 19)".into(), r#"unexpected end of input expecting "," or ")""#.into()),
            ("or", "(id.in.1,2,id.eq.3)", "logic tree ((id.in.1,2,id.eq.3))\" (line 1, column 10)".into(), r#"unexpected "1" expecting "(""#.into()),
            ("and", "(ord(id.eq.1,id.eq.1),id.eq.2)", "logic tree ((ord(id.eq.1,id.eq.1),id.eq.2))\" (line 1, column 7)".into(), r#"unexpected "d" expecting "(""#.into()),
            ("or", "(id.eq.1,not.xor(id.eq.2,id.eq.3))", "logic tree ((id.eq.1,not.xor(id.eq.2,id.eq.3)))\" (line 1, column 16)".into(), r#"unexpected "x" expecting logic operator (and, or)"#.into()),
            ("or", "(a.eq.{1,{2}})", "logic tree ((a.eq.{1,{2}}))\" (line 1, column 12)".into(), logic_start.replace(r#"")""#, r#""{""#)),
            ("select", "data->>--34", "select parameter (data->>--34)\" (line 1, column 9)".into(), r#"unexpected "-" expecting digit"#.into()),
            ("select", "data->>-78xy", "select parameter (data->>-78xy)\" (line 1, column 11)".into(), r#"unexpected 'x' expecting digit, "->", "::", ".", "," or end of input"#.into()),
            ("select", "data->(!@#$%^&*_d->>!@#$%^&*_e::integer", "select parameter (data->(!@#$%^&*_d->>!@#$%^&*_e::integer)\" (line 1, column 7)".into(), r#"unexpected "(" expecting "-", digit or any non reserved character different from: .,>()"#.into()),
            ("select", "id,clients(name[])", "select parameter (id,clients(name[]))\" (line 1, column 16)".into(), r#"unexpected '[' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input"#.into()),
            ("select", "name!hint", "select parameter (name!hint)\" (line 1, column 5)".into(), r#"unexpected '!' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input"#.into()),
            ("select", "name::", "select parameter (name::)\" (line 1, column 7)".into(), "unexpected end of input expecting letter or digit".into()),
            ("select", "id::int[]", "select parameter (id::int[])\" (line 1, column 8)".into(), r#"unexpected '[' expecting letter, digit, ".", "::", ")", "," or end of input"#.into()),
            ("select", "id,", "select parameter (id,)\" (line 1, column 4)".into(), format!("unexpected end of input {select_start}")),
            ("select", "id,,name", "select parameter (id,,name)\" (line 1, column 4)".into(), format!("unexpected \",\" {select_start}")),
            ("select", "clients(", "select parameter (clients()\" (line 1, column 9)".into(), r#"unexpected end of input expecting "...", field name (* or [a..z0..9_$]), "*", "count()" or ")""#.into()),
            ("select", "clients(id", "select parameter (clients(id)\" (line 1, column 11)".into(), r#"unexpected end of input expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input"#.into()),
            ("select", "rel->jsonpath(*)", "select parameter (rel->jsonpath(*))\" (line 1, column 14)".into(), r#"unexpected '(' expecting "-", "->>", "->", "::", ".", ")", "," or end of input"#.into()),
            ("select", "\"abc", "select parameter (\"abc)\" (line 1, column 5)".into(), r#"unexpected end of input expecting "\\" or "\"""#.into()),
            ("select", "a:b:c", "select parameter (a:b:c)\" (line 1, column 4)".into(), r#"unexpected "c" expecting "::""#.into()),
            ("select", "id.foo()", "select parameter (id.foo())\" (line 1, column 4)".into(), r#"unexpected "f" expecting "sum", "avg", "count", "max" or "min""#.into()),
            ("select", "id.sum", "select parameter (id.sum)\" (line 1, column 7)".into(), r#"unexpected end of input expecting "()""#.into()),
            ("select", "alias:...rel(*)", "select parameter (alias:...rel(*))\" (line 1, column 7)".into(), r#"unexpected "." expecting ":" or field name (* or [a..z0..9_$])"#.into()),
            ("select", "rel!leftover(*)", "select parameter (rel!leftover(*))\" (line 1, column 4)".into(), r#"unexpected '!' expecting letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input"#.into()),
            ("select", "a\tb", "select parameter (a\tb)\" (line 1, column 9)".into(), r#"unexpected 'b' expecting "::", ".", ")", "," or end of input"#.into()),
            ("columns", "", "columns parameter ()\" (line 1, column 1)".into(), format!("unexpected end of input expecting {any_name}")),
            ("on_conflict", "a,", "on_conflict parameter (a,)\" (line 1, column 3)".into(), format!("unexpected end of input expecting {any_name}")),
            ("(", "eq.1", "tree path (()\" (line 1, column 1)".into(), format!("unexpected \"(\" expecting {any_name}")),
            ("", "eq.v", "tree path ()\" (line 1, column 1)".into(), format!("unexpected end of input expecting {any_name}")),
            // Derived (not in the spec's table): logic keys are parsed too.
            ("(.or", "(a.eq.1)", "logic path ((.or)\" (line 1, column 1)".into(), format!("unexpected \"(\" expecting {any_name}")),
        ];
        for (key, value, message, details) in cases {
            let (got_message, got_details) = err_pairs(&[(key, value)]);
            assert_eq!(
                got_message,
                format!("\"failed to parse {message}"),
                "{key}={value}"
            );
            assert_eq!(got_details, details, "{key}={value}");
        }
    }

    #[test]
    fn spec_error_body_example() {
        let error = QueryParams::parse("id=0", ParseMode::Relation).unwrap_err();
        assert_eq!(
            error.body().to_string(),
            r#"{"code":"PGRST100","details":"unexpected \"0\" expecting \"not\" or operator (eq, gt, ...)","hint":null,"message":"\"failed to parse filter (0)\" (line 1, column 1)"}"#
        );
        let error =
            QueryParams::parse("order=id.asc.nullslasttt", ParseMode::Relation).unwrap_err();
        assert_eq!(error.body().to_string().len(), 169);
    }

    /// Examples of the parsers' doc comments in PostgREST's `QueryParams.hs`.
    #[test]
    fn postgrest_doctest_errors() {
        let cases = [
            ("select", "*!hint", None),
            (
                "select",
                "data->>-xy-4",
                Some((9, r#"unexpected "x" expecting digit"#)),
            ),
            (
                "id",
                "eq().value",
                Some((4, r#"unexpected ")" expecting operator (eq, gt, ...)"#)),
            ),
            (
                "id",
                "is().value",
                Some((3, r#"unexpected "(" expecting operator (eq, gt, ...)"#)),
            ),
            (
                "id",
                "in().value",
                Some((3, r#"unexpected "(" expecting operator (eq, gt, ...)"#)),
            ),
            (
                "id",
                "val",
                Some((
                    1,
                    r#"unexpected "v" expecting "not" or operator (eq, gt, ...)"#,
                )),
            ),
            (
                "order",
                "id.nulsfist",
                Some((
                    4,
                    r#"unexpected "n" expecting "asc", "desc", "nullsfirst" or "nullslast""#,
                )),
            ),
            (
                "order",
                "id.nullslasttt",
                Some((13, r#"unexpected 't' expecting "," or end of input"#)),
            ),
            (
                "order",
                "id.smth34",
                Some((
                    4,
                    r#"unexpected "s" expecting "asc", "desc", "nullsfirst" or "nullslast""#,
                )),
            ),
            (
                "order",
                "id.asc.smth34",
                Some((8, r#"unexpected "s" expecting "nullsfirst" or "nullslast""#)),
            ),
            (
                "order",
                "id.desc ",
                Some((
                    8,
                    r#"unexpected ' ' expecting delimiter (.), "," or end of input"#,
                )),
            ),
            ("or", ")(", Some((3, r#"unexpected ")" expecting "(""#))),
        ];
        for (key, value, expected) in cases {
            let result = QueryParams::parse(&query(&[(key, value)]), ParseMode::Relation);
            match expected {
                None => assert!(result.is_ok(), "{key}={value}: {result:?}"),
                Some((column, details)) => {
                    let (message, got) = err_pairs(&[(key, value)]);
                    assert!(
                        message.ends_with(&format!("(line 1, column {column})")),
                        "{key}={value}: {message}"
                    );
                    assert_eq!(got, details, "{key}={value}");
                }
            }
        }
    }

    #[test]
    fn rpc_values_that_consume_must_parse() {
        let rpc = |value: &str| err_in(&query(&[("x", value)]), ParseMode::RpcRead);
        assert_eq!(
            rpc("not.really"),
            (
                "\"failed to parse filter (not.really)\" (line 1, column 5)".to_owned(),
                r#"unexpected "r" expecting operator (eq, gt, ...)"#.to_owned()
            )
        );
        assert_eq!(
            rpc("is.foo"),
            (
                "\"failed to parse filter (is.foo)\" (line 1, column 5)".to_owned(),
                r#"unexpected "o" expecting isVal: (null, not_null, true, false, unknown)"#
                    .to_owned()
            )
        );
        assert_eq!(
            rpc("in.abc"),
            (
                "\"failed to parse filter (in.abc)\" (line 1, column 4)".to_owned(),
                r#"unexpected "a" expecting "(""#.to_owned()
            )
        );
    }

    // ------------------------------------------------------------------------------
    // §2: decoding, classification, canonical form, precedence.

    #[test]
    fn decoding_and_classification() {
        let params = ok("a+b=eq.c+d&x=eq.%2B&e=eq.a=b&y=eq.1;z=eq.2&flag&w=eq.%ZZ&&");
        let got: Vec<(String, Operation)> = params
            .filters
            .iter()
            .map(|(_, f)| (f.field.name.clone(), f.operation.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("a b".into(), compare(Operator::Eq, "c d")),
                ("x".into(), compare(Operator::Eq, "+")),
                ("e".into(), compare(Operator::Eq, "a=b")),
                ("y".into(), compare(Operator::Eq, "1")),
                ("z".into(), compare(Operator::Eq, "2")),
                ("w".into(), compare(Operator::Eq, "%ZZ")),
            ]
        );
        // A second '?' is part of the first key.
        let (message, _) = err_in("?a=eq.1", ParseMode::Relation);
        assert_eq!(
            message,
            "\"failed to parse tree path (?a)\" (line 1, column 1)"
        );

        // Reserved only when exact / by last segment.
        let params =
            ok("x.select=eq.1&select.x=eq.2&limit.x=eq.3&clients.select=eq.4&%22order%22=eq.5");
        let got: Vec<(EmbedPath, String)> = params
            .filters
            .iter()
            .map(|(path, f)| (path.clone(), f.field.name.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (strings(&["x"]), "select".into()),
                (strings(&["select"]), "x".into()),
                (strings(&["limit"]), "x".into()),
                (strings(&["clients"]), "select".into()),
                (vec![], "order".into()),
            ]
        );
        // Trailing text of a filter key is ignored.
        for (raw, name) in [
            ("name!x=eq.1", "name"),
            ("%22a%22b=eq.1", "a"),
            ("t~=eq.1", "t"),
        ] {
            assert_eq!(ok(raw).filters[0].1.field.name, name, "{raw}");
        }
        let params = ok(&query(&[("data->a.b", "eq.1")]));
        assert_eq!(
            params.filters[0].1.field,
            json("data", vec![JsonStep::Arrow(key("a"))])
        );
        let params = ok(&query(&[("a.\"b.c\".d", "eq.1")]));
        assert_eq!(params.filters[0].0, strings(&["a", "b.c"]));
        assert_eq!(params.filters[0].1.field.name, "d");
    }

    #[test]
    fn select_defaults_and_first_occurrence() {
        assert_eq!(ok("").select, vec![SelectItem::Star]);
        assert_eq!(ok("select").select, vec![SelectItem::Star]);
        assert_eq!(ok("select&select=id").select, vec![SelectItem::Star]);
        assert_eq!(ok("select=").select, vec![]);
        assert_eq!(ok("select=id&select=name").select, vec![item("id")]);
        assert_eq!(ok("select=id&select=%FF").select, vec![item("id")]);
        assert_eq!(
            ok("columns=b,a,b&columns=z").columns,
            Some(strings(&["a", "b"]))
        );
        assert_eq!(ok("columns").columns, None);
        assert_eq!(
            ok(&query(&[("columns", "a, b)x")])).columns,
            Some(strings(&["a", "b"]))
        );
        assert_eq!(
            ok("on_conflict=b,a").on_conflict,
            Some(strings(&["b", "a"]))
        );
        assert_eq!(ok("").on_conflict, None);
        assert_eq!(
            ok(&query(&[(
                "columns",
                " no leading or trailing spaces ,\" quoted \""
            )]))
            .columns,
            Some(strings(&[" quoted ", "no leading or trailing spaces"]))
        );
    }

    #[test]
    fn canonical_query_string() {
        for (raw, canonical) in [
            (
                "b=eq.1&a=eq.1&select=id,name&a=eq.2&z",
                "a=eq.1,eq.2&b=eq.1&select=id%2Cname&z=",
            ),
            ("a=eq.1&&b=eq.2", "=&a=eq.1&b=eq.2"),
            ("select=%C3%A9:col", "select=%C3%83%C2%A9%3Acol"),
            ("b=eq.1&a=eq.1", "a=eq.1&b=eq.1"),
            ("a=1&c=3&b=2&d", "a=1&b=2&c=3&d="),
            ("", ""),
            ("x=a+b~*", "x=a%20b~%2A"),
        ] {
            let params = QueryParams::parse(raw, ParseMode::RpcRead).unwrap();
            assert_eq!(params.canonical, canonical, "{raw}");
        }
    }

    #[test]
    fn error_precedence() {
        let first = |raw: &str| err_in(raw, ParseMode::Relation).0;
        assert!(first("select=id,&id=0&or=()&order=id.ac").contains("order (id.ac)"));
        assert!(first("select=id,&id=0&or=()&columns=").contains("logic tree"));
        assert!(first("select=id,&id=0&columns=").contains("columns parameter"));
        assert!(first("on_conflict=&id=0&select=id,").contains("select parameter"));
        assert!(first("on_conflict=&id=0").contains("filter (0)"));
        assert!(first("on_conflict=&(.limit=1").contains("on_conflict"));
        assert!(first("a=0&b=1").contains("filter (0)"));
        // Within one filter the key comes first.
        assert!(first("(=0").contains("tree path"));
        assert!(first("(.order=id.ac").contains("tree path"));
    }

    #[test]
    fn invalid_utf8_is_a_parse_error() {
        assert!(matches!(
            QueryParams::parse("id=eq.%FF", ParseMode::Relation),
            Err(ApiError::Parse { .. })
        ));
        assert!(matches!(
            QueryParams::parse("%FF", ParseMode::Relation),
            Err(ApiError::Parse { .. })
        ));
    }

    // ------------------------------------------------------------------------------
    // §4 grammars.

    #[test]
    fn field_names() {
        for (text, name) in [
            ("identifier", "identifier"),
            ("identifier with spaces", "identifier with spaces"),
            ("identifier-with-dashes", "identifier-with-dashes"),
            ("a - b", "a-b"),
            ("123", "123"),
            ("_", "_"),
            ("$", "$"),
            ("\"\\\":\\\"\"", "\":\""),
            ("\":\"", ":"),
            ("\"a.dotted.column\"", "a.dotted.column"),
            (
                "\" leading and trailing spaces \"",
                " leading and trailing spaces ",
            ),
            ("\"D\\a\\vid\"", "David"),
            ("ação", "ação"),
        ] {
            assert_eq!(select(text), vec![item(name)], "{text}");
        }
        let (_, details) = err_pairs(&[("columns", ":")]);
        assert_eq!(
            details,
            "unexpected \":\" expecting field name (* or [a..z0..9_$])"
        );
        // Combining marks are not letters in Haskell (PostgREST rejects them unquoted).
        assert!(QueryParams::parse(&query(&[("select", "ना")]), ParseMode::Relation).is_err());
        assert_eq!(select("\"ना\""), vec![item("ना")]);
    }

    #[test]
    fn json_paths() {
        use JsonStep::{Arrow, DoubleArrow};
        let index = JsonKey::Index;
        assert_eq!(
            select("data->0->0xy1->1->23-xy-45->1->xy-6->>0"),
            vec![field_item(json(
                "data",
                vec![
                    Arrow(index(0)),
                    Arrow(key("0xy1")),
                    Arrow(index(1)),
                    Arrow(key("23-xy-45")),
                    Arrow(index(1)),
                    Arrow(key("xy-6")),
                    DoubleArrow(index(0)),
                ]
            ))]
        );
        assert_eq!(
            select("data->>-1"),
            vec![field_item(json("data", vec![DoubleArrow(index(-1))]))]
        );
        assert_eq!(
            select("alias:name->!@#$%^&*_a::cast"),
            vec![SelectItem::Field {
                field: json("name", vec![Arrow(key("!@#$%^&*_a"))]),
                alias: Some("alias".into()),
                cast: Some("cast".into()),
                aggregate: None,
                aggregate_cast: None,
            }]
        );
        // Inside parentheses an index before `)` is a key.
        assert_eq!(
            select("rel(data->0)"),
            vec![SelectItem::Embed(embed(
                "rel",
                vec![field_item(json("data", vec![Arrow(key("0"))]))]
            ))]
        );
        assert_eq!(
            select("rel(data->0,id)"),
            vec![SelectItem::Embed(embed(
                "rel",
                vec![field_item(json("data", vec![Arrow(index(0))])), item("id")]
            ))]
        );
        assert_eq!(
            select("data->\"a.b\"->> c "),
            vec![field_item(json(
                "data",
                vec![Arrow(key("a.b")), DoubleArrow(key("c"))]
            ))]
        );
        assert_eq!(
            select("data->99999999999999999999"),
            vec![field_item(json("data", vec![Arrow(index(i64::MAX))]))]
        );
    }

    #[test]
    fn aggregates_and_casts() {
        let field = |cast: Option<&str>,
                     aggregate: Option<Aggregate>,
                     aggregate_cast: Option<&str>| SelectItem::Field {
            field: col("col"),
            alias: None,
            cast: cast.map(Into::into),
            aggregate,
            aggregate_cast: aggregate_cast.map(Into::into),
        };
        assert_eq!(
            select("col::int.sum()"),
            vec![field(Some("int"), Some(Aggregate::Sum), None)]
        );
        assert_eq!(
            select("col.sum()::text"),
            vec![field(None, Some(Aggregate::Sum), Some("text"))]
        );
        assert_eq!(
            select("col.avg()"),
            vec![field(None, Some(Aggregate::Avg), None)]
        );
        assert_eq!(
            select("col.max()"),
            vec![field(None, Some(Aggregate::Max), None)]
        );
        assert_eq!(
            select("col.min()"),
            vec![field(None, Some(Aggregate::Min), None)]
        );
        assert_eq!(
            select("col.count()"),
            vec![field(None, Some(Aggregate::Count), None)]
        );
        assert_eq!(select("col::b::c"), vec![field(Some("b"), None, Some("c"))]);
        assert_eq!(
            select("col::double precision"),
            vec![field(Some("double precision"), None, None)]
        );
        assert_eq!(
            select("col::_int4 "),
            vec![field(Some("_int4"), None, None)]
        );
        assert_eq!(
            select("count(),c:count()::text"),
            vec![
                SelectItem::Count {
                    alias: None,
                    cast: None
                },
                SelectItem::Count {
                    alias: Some("c".into()),
                    cast: Some("text".into())
                }
            ]
        );
        assert_eq!(
            select("sum()"),
            vec![SelectItem::Embed(embed("sum", vec![]))]
        );
        // A field named `*` is the star, as in PostgREST's planner.
        assert_eq!(select("\"*\""), vec![SelectItem::Star]);
        assert_eq!(
            select("n:\"*\".count()::int"),
            vec![SelectItem::Count {
                alias: Some("n".into()),
                cast: Some("int".into())
            }]
        );
        assert!(
            QueryParams::parse(&query(&[("select", "count(id)")]), ParseMode::Relation).is_err()
        );
    }

    #[test]
    fn embeds() {
        let full =
            |alias: Option<&str>, hint: Option<&str>, join: Option<JoinType>, spread: bool| {
                SelectItem::Embed(Embed {
                    relation: "rel".into(),
                    alias: alias.map(Into::into),
                    hint: hint.map(Into::into),
                    join,
                    spread,
                    select: vec![SelectItem::Star],
                })
            };
        assert_eq!(select("rel(*)"), vec![full(None, None, None, false)]);
        assert_eq!(
            select("alias:rel(*)"),
            vec![full(Some("alias"), None, None, false)]
        );
        assert_eq!(
            select("rel!hint(*)"),
            vec![full(None, Some("hint"), None, false)]
        );
        assert_eq!(
            select("rel!inner(*)"),
            vec![full(None, None, Some(JoinType::Inner), false)]
        );
        assert_eq!(
            select("rel!left(*)"),
            vec![full(None, None, Some(JoinType::Left), false)]
        );
        assert_eq!(
            select("rel!hint!inner(*)"),
            vec![full(None, Some("hint"), Some(JoinType::Inner), false)]
        );
        assert_eq!(
            select("alias:rel!inner!hint(*)"),
            vec![full(
                Some("alias"),
                Some("hint"),
                Some(JoinType::Inner),
                false
            )]
        );
        assert_eq!(
            select("rel!\"leftover\"(*)"),
            vec![full(None, Some("leftover"), None, false)]
        );
        assert_eq!(select("...rel(*)"), vec![full(None, None, None, true)]);
        assert_eq!(
            select("...rel!hint!inner(*)"),
            vec![full(None, Some("hint"), Some(JoinType::Inner), true)]
        );
        assert_eq!(
            select("*,...client(*),other(*)"),
            vec![
                SelectItem::Star,
                SelectItem::Embed(Embed {
                    spread: true,
                    ..embed("client", vec![SelectItem::Star])
                }),
                SelectItem::Embed(embed("other", vec![SelectItem::Star])),
            ]
        );
        assert_eq!(
            select("rel()"),
            vec![SelectItem::Embed(embed("rel", vec![]))]
        );
        assert_eq!(
            select("*,client(*,nested(*))"),
            vec![
                SelectItem::Star,
                SelectItem::Embed(embed(
                    "client",
                    vec![
                        SelectItem::Star,
                        SelectItem::Embed(embed("nested", vec![SelectItem::Star]))
                    ]
                ))
            ]
        );
        assert_eq!(select(" id , name "), vec![item("id"), item("name")]);
        assert_eq!(select("id name"), vec![item("id name")]);
    }

    #[test]
    fn degenerate_selects() {
        assert_eq!(select(""), vec![]);
        assert_eq!(select(",id"), vec![]);
        assert_eq!(select("*!hint"), vec![]);
        assert_eq!(select("...rel"), vec![]);
        assert_eq!(select("id)garbage"), vec![item("id")]);
        assert_eq!(
            select("*,clients(*)x"),
            vec![
                SelectItem::Star,
                SelectItem::Embed(embed("clients", vec![SelectItem::Star]))
            ]
        );
    }

    #[test]
    fn operators() {
        let quant = |operator, quantifier, value: &str| Operation::Compare {
            operator,
            quantifier: Some(quantifier),
            value: value.into(),
        };
        for (text, negated, operation) in [
            ("eq.1", false, compare(Operator::Eq, "1")),
            ("eq.", false, compare(Operator::Eq, "")),
            ("eq.a.b(c),d", false, compare(Operator::Eq, "a.b(c),d")),
            ("not.eq.1", true, compare(Operator::Eq, "1")),
            ("neq.1", false, compare(Operator::Neq, "1")),
            ("gt.1", false, compare(Operator::Gt, "1")),
            ("gte.1", false, compare(Operator::Gte, "1")),
            ("lt.1", false, compare(Operator::Lt, "1")),
            ("lte.1", false, compare(Operator::Lte, "1")),
            ("like.*a*", false, compare(Operator::Like, "*a*")),
            ("ilike.*a*", false, compare(Operator::Ilike, "*a*")),
            ("match.^a", false, compare(Operator::Match, "^a")),
            ("imatch.^a", false, compare(Operator::Imatch, "^a")),
            (
                "isdistinct.foo",
                false,
                compare(Operator::IsDistinct, "foo"),
            ),
            ("cs.{1,2}", false, compare(Operator::Contains, "{1,2}")),
            ("cd.{1}", false, compare(Operator::ContainedIn, "{1}")),
            ("ov.[1,2]", false, compare(Operator::Overlap, "[1,2]")),
            ("sl.(1,2)", false, compare(Operator::StrictlyLeft, "(1,2)")),
            ("sr.(1,2)", false, compare(Operator::StrictlyRight, "(1,2)")),
            (
                "nxr.(1,2)",
                false,
                compare(Operator::NotExtendRight, "(1,2)"),
            ),
            (
                "nxl.(1,2)",
                false,
                compare(Operator::NotExtendLeft, "(1,2)"),
            ),
            ("adj.(1,2)", false, compare(Operator::Adjacent, "(1,2)")),
            (
                "eq(any).{1,2}",
                false,
                quant(Operator::Eq, Quantifier::Any, "{1,2}"),
            ),
            (
                "not.like(all).{a*,*b}",
                true,
                quant(Operator::Like, Quantifier::All, "{a*,*b}"),
            ),
            ("is.null", false, Operation::Is(IsValue::Null)),
            ("is.NULL", false, Operation::Is(IsValue::Null)),
            ("is.nullx", false, Operation::Is(IsValue::Null)),
            ("is.NoT_NuLl", false, Operation::Is(IsValue::NotNull)),
            ("is.TRUE", false, Operation::Is(IsValue::True)),
            ("is.fAlSe", false, Operation::Is(IsValue::False)),
            ("is.UnKnOwN", false, Operation::Is(IsValue::Unknown)),
            ("not.is.null", true, Operation::Is(IsValue::Null)),
            (
                "fts.a b",
                false,
                Operation::Fts {
                    operator: FtsOperator::Fts,
                    language: None,
                    value: "a b".into(),
                },
            ),
            (
                "plfts(english).cat",
                false,
                Operation::Fts {
                    operator: FtsOperator::Plain,
                    language: Some("english".into()),
                    value: "cat".into(),
                },
            ),
            (
                "phfts.x",
                false,
                Operation::Fts {
                    operator: FtsOperator::Phrase,
                    language: None,
                    value: "x".into(),
                },
            ),
            (
                "not.wfts(eng lish ).a",
                true,
                Operation::Fts {
                    operator: FtsOperator::Websearch,
                    language: Some("eng lish".into()),
                    value: "a".into(),
                },
            ),
        ] {
            assert_eq!(filter_value(text), (negated, operation), "{text}");
        }
    }

    #[test]
    fn in_lists() {
        for (text, elements) in [
            ("in.(1,2)", vec!["1", "2"]),
            ("in.( a , b )", vec!["a ", " b "]),
            ("in.(\"a\"b,c)", vec!["\"a\"b", "c"]),
            ("in.(\")", vec!["\""]),
            (
                "in.(Double\"Quote\"McGraw\")",
                vec!["Double\"Quote\"McGraw\""],
            ),
            ("in.(\"D\\a\\vid W\\h\\ite\")", vec!["David White"]),
            ("in.(\"\\\\\")", vec!["\\"]),
            ("in.(\"a,b\",\"c)\")", vec!["a,b", "c)"]),
            ("in.()", vec![""]),
            ("in.(   )", vec![""]),
            ("in.( ,3,4)", vec!["", "3", "4"]),
            ("in.(1,2)garbage", vec!["1", "2"]),
        ] {
            assert_eq!(
                filter_value(text),
                (false, Operation::In(strings(&elements))),
                "{text}"
            );
        }
    }

    #[test]
    fn logic_trees() {
        let leaf = |name: &str, operation| LogicTree::Leaf(filter(name, operation));
        let node = |negated, operator, children| LogicTree::Node {
            negated,
            operator,
            children,
        };
        let logic = |pairs: &[(&str, &str)]| ok_pairs(pairs).logic;
        assert_eq!(
            logic(&[("or", "(a.eq.1,and(b.gt.2,not.or(c.is.null,d.in.(1,2))))")]),
            vec![(
                vec![],
                node(
                    false,
                    LogicOperator::Or,
                    vec![
                        leaf("a", compare(Operator::Eq, "1")),
                        node(
                            false,
                            LogicOperator::And,
                            vec![
                                leaf("b", compare(Operator::Gt, "2")),
                                node(
                                    true,
                                    LogicOperator::Or,
                                    vec![
                                        leaf("c", Operation::Is(IsValue::Null)),
                                        leaf("d", Operation::In(strings(&["1", "2"]))),
                                    ]
                                ),
                            ]
                        ),
                    ]
                )
            )]
        );
        assert_eq!(
            logic(&[("not.and", "(name.eq.\"x,y\",arr.cs.{1,2,3},a.not.eq.1)")]),
            vec![(
                vec![],
                node(
                    true,
                    LogicOperator::And,
                    vec![
                        leaf("name", compare(Operator::Eq, "x,y")),
                        leaf("arr", compare(Operator::Contains, "{1,2,3}")),
                        LogicTree::Leaf(Filter {
                            negated: true,
                            ..filter("a", compare(Operator::Eq, "1"))
                        }),
                    ]
                )
            )]
        );
        assert_eq!(
            logic(&[("or", "( a.eq.1 , b.eq.2 )")]),
            vec![(
                vec![],
                node(
                    false,
                    LogicOperator::Or,
                    vec![
                        leaf("a", compare(Operator::Eq, "1 ")),
                        leaf("b", compare(Operator::Eq, "2 "))
                    ]
                )
            )]
        );
        assert_eq!(
            logic(&[("or", "(a.eq.x(y))")]),
            vec![(
                vec![],
                node(
                    false,
                    LogicOperator::Or,
                    vec![leaf("a", compare(Operator::Eq, "x(y"))]
                )
            )]
        );
        assert_eq!(logic(&[("and", "(id.eq.1,id.neq.2))")]).len(), 1);
        // `or=id.eq.1` parses `orid.eq.1`.
        assert_eq!(
            logic(&[("or", "id.eq.1")]),
            vec![(vec![], leaf("orid", compare(Operator::Eq, "1")))]
        );
        // Paths.
        let paths: Vec<EmbedPath> = logic(&[
            ("clients.not.and", "(a.eq.1)"),
            ("x.not.y.and", "(a.eq.1)"),
            ("clients.or", "(a.eq.1)"),
        ])
        .into_iter()
        .map(|(path, _)| path)
        .collect();
        assert_eq!(
            paths,
            vec![
                strings(&["clients"]),
                strings(&["x", "y"]),
                strings(&["clients"])
            ]
        );
        let negated = logic(&[("clients.not.and", "(a.eq.1)")]);
        assert!(matches!(
            negated[0].1,
            LogicTree::Node {
                negated: true,
                operator: LogicOperator::And,
                ..
            }
        ));
        // `in` values and quoted values inside logic.
        assert_eq!(
            logic(&[("or", "(a.in.(\"x,)\",y),b.eq.\"q\\\"\")")]),
            vec![(
                vec![],
                node(
                    false,
                    LogicOperator::Or,
                    vec![
                        leaf("a", Operation::In(strings(&["x,)", "y"]))),
                        leaf("b", compare(Operator::Eq, "q\"")),
                    ]
                )
            )]
        );
    }

    #[test]
    fn order_terms_parse() {
        let term = |target, direction, nulls| OrderTerm {
            target,
            direction,
            nulls,
        };
        let order = |text: &str| ok_pairs(&[("order", text)]).order;
        assert_eq!(
            order("name.desc.nullsfirst"),
            vec![(
                vec![],
                vec![term(
                    OrderTarget::Field(col("name")),
                    Some(Direction::Desc),
                    Some(Nulls::First)
                )]
            )]
        );
        assert_eq!(
            order("json_col->key.asc.nullslast"),
            vec![(
                vec![],
                vec![term(
                    OrderTarget::Field(json("json_col", vec![JsonStep::Arrow(key("key"))])),
                    Some(Direction::Asc),
                    Some(Nulls::Last)
                )]
            )]
        );
        assert_eq!(
            order("clients(json_col->key).desc.nullsfirst"),
            vec![(
                vec![],
                vec![term(
                    OrderTarget::Related {
                        relation: "clients".into(),
                        field: json("json_col", vec![JsonStep::Arrow(key("key"))])
                    },
                    Some(Direction::Desc),
                    Some(Nulls::First)
                )]
            )]
        );
        assert_eq!(
            order("name,clients(name),id.nullslast"),
            vec![(
                vec![],
                vec![
                    term(OrderTarget::Field(col("name")), None, None),
                    term(
                        OrderTarget::Related {
                            relation: "clients".into(),
                            field: col("name")
                        },
                        None,
                        None
                    ),
                    term(OrderTarget::Field(col("id")), None, Some(Nulls::Last)),
                ]
            )]
        );
        assert_eq!(
            order("data->0.desc, data->>id.asc"),
            vec![(
                vec![],
                vec![
                    term(
                        OrderTarget::Field(json("data", vec![JsonStep::Arrow(JsonKey::Index(0))])),
                        Some(Direction::Desc),
                        None
                    ),
                    term(
                        OrderTarget::Field(json("data", vec![JsonStep::DoubleArrow(key("id"))])),
                        Some(Direction::Asc),
                        None
                    ),
                ]
            )]
        );
        let params = ok_pairs(&[("clients.order", "id"), ("order", "id.desc")]);
        assert_eq!(params.order[0].0, strings(&["clients"]));
        assert_eq!(params.order[1].0, Vec::<String>::new());
    }

    #[test]
    fn rpc_arguments_and_filters() {
        let rpc = |raw: &str| QueryParams::parse(raw, ParseMode::RpcRead).unwrap();
        let params = rpc(
            "name=Peter&x=eq.5&y=isdistinct.foo&z=cs.%7B1%7D&w=not.eq.1&a=eqx&b=5&c=&d=fts(x&a.b=1&data-%3Ek=2&name=Paul",
        );
        assert_eq!(
            params.rpc_args,
            vec![
                ("name".into(), "Peter".into()),
                ("a".into(), "eqx".into()),
                ("b".into(), "5".into()),
                ("c".into(), "".into()),
                ("d".into(), "fts(x".into()),
                ("b".into(), "1".into()),
                ("data".into(), "2".into()),
                ("name".into(), "Paul".into()),
            ]
        );
        let filtered: Vec<&str> = params
            .filters
            .iter()
            .map(|(_, f)| f.field.name.as_str())
            .collect();
        assert_eq!(filtered, vec!["x", "y", "z", "w"]);
        assert!(params.filters[3].1.negated);
        // Reserved keys are never arguments.
        let params = rpc("select=a&order=a&limit=1&offset=2&columns=a&on_conflict=a");
        assert!(params.rpc_args.is_empty());
        // Relation mode: every value must parse.
        assert!(QueryParams::parse("name=Peter", ParseMode::Relation).is_err());
        assert!(QueryParams::parse("(=Peter", ParseMode::RpcRead).is_err());
    }

    #[test]
    fn limits_and_offsets() {
        let root = |raw: &str| ok(raw).root_range();
        assert_eq!(root(""), (None, None));
        assert_eq!(
            root("limit=1&limit=2&offset=1&offset=3"),
            (Some(2), Some(3))
        );
        assert_eq!(root("limit=abc"), (None, None));
        assert_eq!(root("limit=abc&offset=5"), (Some(0), Some(5)));
        assert_eq!(root("limit=abc&offset=zz"), (Some(0), None));
        assert_eq!(root("limit=5&offset=zz"), (Some(5), None));
        assert_eq!(root("offset=5"), (None, Some(5)));
        assert_eq!(root("offset=-4"), (None, Some(-4)));
        assert_eq!(root("limit=1&limit=abc"), (None, None));
        assert_eq!(root("limit"), (None, None));
        for (text, value) in [
            ("2", Some(2)),
            (" 2 ", Some(2)),
            ("(2)", Some(2)),
            ("( ( 2 ) )", Some(2)),
            ("(-2)", Some(-2)),
            ("-2", Some(-2)),
            ("- 2", Some(-2)),
            ("007", Some(7)),
            ("0x1F", Some(31)),
            ("0X1f", Some(31)),
            ("0o17", Some(15)),
            ("-0x10", Some(-16)),
            ("99999999999999999999", Some(i64::MAX)),
            ("-99999999999999999999", Some(i64::MIN)),
            ("+2", None),
            ("1.5", None),
            ("1.", None),
            ("1e3", None),
            ("0x", None),
            ("0b1", None),
            ("(2", None),
            ("2)", None),
            ("-(2)", None),
            ("--2", None),
            ("2 3", None),
            ("", None),
            ("abc", None),
            ("1_000", None),
            ("\u{a0}3\u{3000}", Some(3)),
        ] {
            assert_eq!(read_integer(text), value, "{text:?}");
        }
        let params =
            ok("clients.limit=5&clients.offset=2&limit=1&x.y.offset=3&%22clients%22.limit=9");
        assert_eq!(
            params.ranges,
            vec![
                RangeParam {
                    path: strings(&["clients"]),
                    limit: Some(9),
                    offset: None
                },
                RangeParam {
                    path: vec![],
                    limit: Some(1),
                    offset: None
                },
                RangeParam {
                    path: strings(&["x", "y"]),
                    limit: None,
                    offset: Some(3)
                },
            ]
        );
        let (message, details) = err_in("(.offset=1", ParseMode::Relation);
        assert_eq!(
            message,
            "\"failed to parse tree path ((.limit)\" (line 1, column 1)"
        );
        assert_eq!(
            details,
            "unexpected \"(\" expecting field name (* or [a..z0..9_$])"
        );
    }

    // ------------------------------------------------------------------------------
    // Printers

    #[test]
    fn printers_examples() {
        let params = ok_pairs(&[
            (
                "select",
                "a:b->c::int,\"x,y\"(*),...r!\"left\"!inner(d.sum()::text),count()",
            ),
            ("order", "r(c->1).desc.nullsfirst,\"a b\".asc"),
            (
                "or",
                "(a.eq.\"1,2\",not.and(b.in.(\" x\",\"y)\"),c.fts(simple).z))",
            ),
            ("\"order\"", "not.eq(any).{1,2}"),
        ]);
        assert_eq!(
            print_select(&params.select),
            "a:b->c::int,\"x,y\"(*),...r!\"left\"!inner(d.sum()::text),count()"
        );
        // Inside `relation(...)` an index before `)` reads as a key.
        assert_eq!(
            print_order(&params.order[0].1),
            "r(c->\"1\").desc.nullsfirst,\"a b\".asc"
        );
        assert_eq!(
            print_logic(&params.logic[0].1),
            "(a.eq.\"1,2\",not.and(b.in.(\" x\",\"y)\"),c.fts(simple).z))"
        );
        assert_eq!(
            print_filter(&params.filters[0].1),
            ("\"order\"".to_owned(), "not.eq(any).{1,2}".to_owned())
        );
    }

    // ------------------------------------------------------------------------------
    // Depth limits and large inputs

    fn nested_logic(levels: usize) -> String {
        format!("({}a.eq.1{}", "or(".repeat(levels - 1), ")".repeat(levels))
    }

    fn nested_select(levels: usize) -> String {
        format!("{}id{}", "r(".repeat(levels), ")".repeat(levels))
    }

    #[test]
    fn nesting_limits() {
        // 100 nested nodes/embeds parse; one more is a clear PGRST100.
        assert_eq!(
            ok_pairs(&[("or", &nested_logic(MAX_NESTING))]).logic.len(),
            1
        );
        let (message, details) = err_pairs(&[("or", &nested_logic(MAX_NESTING + 1))]);
        assert!(
            message.starts_with("\"failed to parse logic tree ((or(or("),
            "{message}"
        );
        assert!(
            message.ends_with(&format!("(line 1, column {})", 3 + 3 * 100 + 1)),
            "{message}"
        );
        assert_eq!(details, "nesting depth exceeds the maximum of 100");

        assert_eq!(
            ok_pairs(&[("select", &nested_select(MAX_NESTING))])
                .select
                .len(),
            1
        );
        let (message, details) = err_pairs(&[("select", &nested_select(MAX_NESTING + 1))]);
        assert!(
            message.ends_with(&format!("(line 1, column {})", 2 * 101 + 1)),
            "{message}"
        );
        assert_eq!(details, "nesting depth exceeds the maximum of 100");

        let (_, details) = err_pairs(&[("or", &nested_logic(1000))]);
        assert_eq!(details, "nesting depth exceeds the maximum of 100");
        let (_, details) = err_pairs(&[("select", &nested_select(1000))]);
        assert_eq!(details, "nesting depth exceeds the maximum of 100");
        let (_, details) = err_pairs(&[("not.and", &"(".repeat(100_000))]);
        assert!(details.starts_with("unexpected \"(\""), "{details}");
        let (_, details) = err_pairs(&[("select", &"a(".repeat(50_000))]);
        assert_eq!(details, "nesting depth exceeds the maximum of 100");
    }

    /// The worst shapes at the maximum depth need about 1 MiB of stack in debug builds
    /// (about 256 KiB in release).
    #[test]
    fn maximum_nesting_fits_a_small_stack() {
        let n = MAX_NESTING;
        let handle = std::thread::Builder::new()
            .stack_size(1536 * 1024)
            .spawn(move || {
                let deep_logic = [
                    nested_logic(n),
                    format!(
                        "({}a.eq.1{}",
                        "a.eq.1,not.and(".repeat(n - 1),
                        ")".repeat(n)
                    ),
                ];
                let deep_select = [
                    nested_select(n),
                    format!("{}id{}", "id,a:r!h!inner(".repeat(n), ")".repeat(n)),
                    format!("{}id{}", "id,...r(".repeat(n), ")".repeat(n)),
                ];
                for tree in &deep_logic {
                    assert_eq!(ok_pairs(&[("or", tree)]).logic.len(), 1);
                }
                for tree in &deep_select {
                    assert!(!ok_pairs(&[("select", tree)]).select.is_empty());
                }
                QueryParams::parse(
                    &query(&[
                        ("or", &nested_logic(n + 1)),
                        ("select", &nested_select(10_000)),
                    ]),
                    ParseMode::Relation,
                )
                .is_err()
            })
            .unwrap();
        assert!(handle.join().unwrap());
    }

    #[test]
    fn large_inputs_parse_without_overflow() {
        let columns: Vec<String> = (0..12_000).map(|n| format!("c{n}")).collect();
        let list = columns.join(",");
        let big_value = "x".repeat(100_000);
        let leaves: Vec<String> = (0..8_000).map(|n| format!("c{n}.eq.{n}")).collect();
        let cases: Vec<(String, String)> = vec![
            ("select".into(), list.clone()),
            ("select".into(), format!("{},", list)),
            ("columns".into(), list.clone()),
            ("order".into(), list.clone()),
            (
                "order".into(),
                format!("{}.desc.nullsfirst", columns.join(".asc,")),
            ),
            ("id".into(), format!("eq.{big_value}")),
            ("id".into(), format!("in.({list})")),
            ("or".into(), format!("({})", leaves.join(","))),
            (big_value.clone(), "eq.1".into()),
            ("select".into(), big_value.clone()),
            ("select".into(), format!("a->{big_value}")),
            ("select".into(), "-".repeat(100_000)),
            ("id".into(), "not.".repeat(25_000)),
            ("select".into(), "\"".repeat(100_000)),
            ("or".into(), format!("(a.eq.{{{big_value}")),
            ("limit".into(), "(".repeat(100_000)),
        ];
        let many_params = [
            "a=eq.1&".repeat(14_000),
            "limit=1&x.offset=2&y.order=id&not.or=(a.eq.1)&".repeat(2_000),
            "&".repeat(100_000),
        ];
        // Speed is measured by `make bench`; here: no panic, no stack overflow.
        for raw in many_params {
            assert!(QueryParams::parse(&raw, ParseMode::RpcRead).is_ok());
        }
        for (key, value) in cases {
            let raw = query(&[(&key, &value)]);
            let _ = QueryParams::parse(&raw, ParseMode::Relation);
            let _ = QueryParams::parse(&raw, ParseMode::RpcRead);
        }
    }

    // ------------------------------------------------------------------------------
    // Property tests

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn any_text(max: usize) -> impl Strategy<Value = String> {
            prop::collection::vec(any::<char>(), 0..max)
                .prop_map(|chars| chars.into_iter().collect())
        }

        fn tricky_text() -> impl Strategy<Value = String> {
            prop::collection::vec(
                prop::sample::select(vec![
                    'a', 'b', '1', ' ', '\t', '"', '\\', ',', '(', ')', '.', ':', '-', '>', '!',
                    '{', '}', '*', '\'', ';', '$', 'é', '€', '\n',
                ]),
                0..8,
            )
            .prop_map(|chars| chars.into_iter().collect())
        }

        fn name() -> impl Strategy<Value = String> {
            prop_oneof![
                "[a-z_][a-z0-9_]{0,5}",
                "[a-zé$]{1,3}(-[a-z0-9]{1,3}){0,2}",
                prop::sample::select(vec![
                    "order",
                    "or",
                    "and",
                    "not",
                    "count",
                    "select",
                    "limit",
                    "offset",
                    "columns",
                    "on_conflict",
                    "left",
                    "inner",
                    "leftover",
                    "innerx",
                    "sum",
                    "asc",
                    "desc",
                    "in",
                    "is",
                    "eq",
                    "a b",
                    " a",
                    "",
                    "1",
                    "-1",
                    "a.b",
                    "\"",
                    "\\",
                    "->",
                    "a-",
                    "*",
                ])
                .prop_map(String::from),
                tricky_text(),
                any_text(5),
            ]
        }

        fn identifier() -> impl Strategy<Value = String> {
            prop_oneof!["[a-zé_$][a-z0-9_ $]{0,6}[a-z0-9_$]", "[a-z]"]
        }

        fn json_key() -> impl Strategy<Value = JsonKey> {
            prop_oneof![
                any::<i64>().prop_map(JsonKey::Index),
                (-3i64..20).prop_map(JsonKey::Index),
                name().prop_map(JsonKey::Key),
            ]
        }

        fn field() -> impl Strategy<Value = Field> {
            (
                name(),
                prop::collection::vec(
                    (any::<bool>(), json_key()).prop_map(|(double, key)| {
                        if double {
                            JsonStep::DoubleArrow(key)
                        } else {
                            JsonStep::Arrow(key)
                        }
                    }),
                    0..3,
                ),
            )
                .prop_map(|(name, json_path)| Field { name, json_path })
        }

        fn aggregate() -> impl Strategy<Value = Aggregate> {
            prop::sample::select(vec![
                Aggregate::Count,
                Aggregate::Sum,
                Aggregate::Avg,
                Aggregate::Max,
                Aggregate::Min,
            ])
        }

        fn select_leaf() -> impl Strategy<Value = SelectItem> {
            prop_oneof![
                Just(SelectItem::Star),
                (
                    field(),
                    prop::option::of(name()),
                    prop::option::of(identifier()),
                    prop::option::of(aggregate()),
                    prop::option::of(identifier())
                )
                    .prop_map(|(field, alias, cast, aggregate, aggregate_cast)| {
                        let aggregate_cast = if cast.is_some() || aggregate.is_some() {
                            aggregate_cast
                        } else {
                            None
                        };
                        let field = if field.name == "*" {
                            Field {
                                name: "x".into(),
                                ..field
                            }
                        } else {
                            field
                        };
                        SelectItem::Field {
                            field,
                            alias,
                            cast,
                            aggregate,
                            aggregate_cast,
                        }
                    }),
                (prop::option::of(name()), prop::option::of(identifier()))
                    .prop_map(|(alias, cast)| SelectItem::Count { alias, cast }),
            ]
        }

        /// What the grammar reads back for an item that ends a `(...)` list.
        fn last_in_parentheses(items: &mut [SelectItem]) {
            if let Some(SelectItem::Field {
                field,
                cast: None,
                aggregate: None,
                ..
            }) = items.last_mut()
                && let Some(step) = field.json_path.last_mut()
                && let JsonKey::Index(index) = step.key().clone()
            {
                let key = JsonKey::Key(index.to_string());
                *step = match step {
                    JsonStep::Arrow(_) => JsonStep::Arrow(key),
                    JsonStep::DoubleArrow(_) => JsonStep::DoubleArrow(key),
                };
            }
        }

        fn select_items() -> impl Strategy<Value = Vec<SelectItem>> {
            let item = select_leaf().prop_recursive(4, 24, 4, |inner| {
                (
                    name(),
                    prop::option::of(name()),
                    prop::option::of(name()),
                    prop::option::of(prop::sample::select(vec![JoinType::Inner, JoinType::Left])),
                    any::<bool>(),
                    prop::collection::vec(inner, 0..4),
                )
                    .prop_map(
                        |(relation, alias, hint, join, spread, mut select)| {
                            last_in_parentheses(&mut select);
                            let relation = if relation == "count" && !spread {
                                "counts".into()
                            } else {
                                relation
                            };
                            SelectItem::Embed(Embed {
                                relation,
                                alias: if spread { None } else { alias },
                                hint,
                                join,
                                spread,
                                select,
                            })
                        },
                    )
            });
            prop::collection::vec(item, 0..5)
        }

        fn operator() -> impl Strategy<Value = Operator> {
            prop::sample::select(vec![
                Operator::Eq,
                Operator::Neq,
                Operator::Gt,
                Operator::Gte,
                Operator::Lt,
                Operator::Lte,
                Operator::Like,
                Operator::Ilike,
                Operator::Match,
                Operator::Imatch,
                Operator::IsDistinct,
                Operator::Contains,
                Operator::ContainedIn,
                Operator::Overlap,
                Operator::StrictlyLeft,
                Operator::StrictlyRight,
                Operator::NotExtendRight,
                Operator::NotExtendLeft,
                Operator::Adjacent,
            ])
        }

        fn value() -> impl Strategy<Value = String> {
            prop_oneof![tricky_text(), any_text(6), "[a-z0-9{},]{0,6}"]
        }

        fn operation() -> impl Strategy<Value = Operation> {
            prop_oneof![
                (
                    operator(),
                    prop::option::of(prop::sample::select(vec![Quantifier::Any, Quantifier::All])),
                    value()
                )
                    .prop_map(|(operator, quantifier, value)| Operation::Compare {
                        operator,
                        quantifier: quantifier.filter(|_| operator.quantifiable()),
                        value,
                    }),
                prop::collection::vec(value(), 1..4).prop_map(Operation::In),
                prop::sample::select(vec![
                    IsValue::Null,
                    IsValue::NotNull,
                    IsValue::True,
                    IsValue::False,
                    IsValue::Unknown
                ])
                .prop_map(Operation::Is),
                (
                    prop::sample::select(vec![
                        FtsOperator::Fts,
                        FtsOperator::Plain,
                        FtsOperator::Phrase,
                        FtsOperator::Websearch
                    ]),
                    prop::option::of(identifier()),
                    value()
                )
                    .prop_map(|(operator, language, value)| Operation::Fts {
                        operator,
                        language,
                        value,
                    }),
            ]
        }

        fn filter() -> impl Strategy<Value = Filter> {
            (field(), any::<bool>(), operation()).prop_map(|(field, negated, operation)| Filter {
                field,
                negated,
                operation,
            })
        }

        fn logic_tree() -> impl Strategy<Value = LogicTree> {
            let node = |children: BoxedStrategy<LogicTree>| {
                (
                    any::<bool>(),
                    prop::sample::select(vec![LogicOperator::And, LogicOperator::Or]),
                    prop::collection::vec(children, 1..4),
                )
                    .prop_map(|(negated, operator, children)| LogicTree::Node {
                        negated,
                        operator,
                        children,
                    })
            };
            let tree = filter()
                .prop_map(LogicTree::Leaf)
                .prop_recursive(4, 24, 3, move |inner| node(inner.boxed()));
            node(tree.boxed())
        }

        fn order_terms() -> impl Strategy<Value = Vec<OrderTerm>> {
            let target = prop_oneof![
                field().prop_map(OrderTarget::Field),
                (name(), field()).prop_map(|(relation, field)| {
                    let mut items = vec![SelectItem::Field {
                        field,
                        alias: None,
                        cast: None,
                        aggregate: None,
                        aggregate_cast: None,
                    }];
                    last_in_parentheses(&mut items);
                    match items.pop() {
                        Some(SelectItem::Field { field, .. }) => {
                            OrderTarget::Related { relation, field }
                        }
                        _ => OrderTarget::Field(Field::column("x")),
                    }
                }),
            ];
            prop::collection::vec(
                (
                    target,
                    prop::option::of(prop::sample::select(vec![Direction::Asc, Direction::Desc])),
                    prop::option::of(prop::sample::select(vec![Nulls::First, Nulls::Last])),
                )
                    .prop_map(|(target, direction, nulls)| OrderTerm {
                        target,
                        direction,
                        nulls,
                    }),
                1..4,
            )
        }

        /// Collects every string the AST carries (names and values, not indexes).
        fn texts(params: &QueryParams) -> Vec<String> {
            fn field(out: &mut Vec<String>, field: &Field) {
                out.push(field.name.clone());
                for step in &field.json_path {
                    if let JsonKey::Key(key) = step.key() {
                        out.push(key.clone());
                    }
                }
            }
            fn filter(out: &mut Vec<String>, f: &Filter) {
                field(out, &f.field);
                match &f.operation {
                    Operation::Compare { value, .. } => out.push(value.clone()),
                    Operation::In(list) => out.extend(list.iter().cloned()),
                    Operation::Is(_) => {}
                    Operation::Fts {
                        language, value, ..
                    } => {
                        out.extend(language.iter().cloned());
                        out.push(value.clone());
                    }
                }
            }
            fn logic(out: &mut Vec<String>, tree: &LogicTree) {
                match tree {
                    LogicTree::Leaf(f) => filter(out, f),
                    LogicTree::Node { children, .. } => children.iter().for_each(|c| logic(out, c)),
                }
            }
            fn select(out: &mut Vec<String>, items: &[SelectItem]) {
                for item in items {
                    match item {
                        SelectItem::Star => {}
                        SelectItem::Field {
                            field: f,
                            alias,
                            cast,
                            aggregate_cast,
                            ..
                        } => {
                            field(out, f);
                            out.extend(alias.iter().chain(cast).chain(aggregate_cast).cloned());
                        }
                        SelectItem::Count { alias, cast } => {
                            out.extend(alias.iter().chain(cast).cloned())
                        }
                        SelectItem::Embed(embed) => {
                            out.push(embed.relation.clone());
                            out.extend(embed.alias.iter().chain(&embed.hint).cloned());
                            select(out, &embed.select);
                        }
                    }
                }
            }
            let mut out = Vec::new();
            select(&mut out, &params.select);
            params.filters.iter().for_each(|(path, f)| {
                out.extend(path.iter().cloned());
                filter(&mut out, f);
            });
            params.logic.iter().for_each(|(path, tree)| {
                out.extend(path.iter().cloned());
                logic(&mut out, tree);
            });
            for (path, terms) in &params.order {
                out.extend(path.iter().cloned());
                for term in terms {
                    match &term.target {
                        OrderTarget::Field(f) => field(&mut out, f),
                        OrderTarget::Related { relation, field: f } => {
                            out.push(relation.clone());
                            field(&mut out, f);
                        }
                    }
                }
            }
            out.extend(params.columns.iter().flatten().cloned());
            out.extend(params.on_conflict.iter().flatten().cloned());
            for (name, value) in &params.rpc_args {
                out.push(name.clone());
                out.push(value.clone());
            }
            out
        }

        fn is_subsequence(needle: &str, haystack: &str) -> bool {
            let mut rest = haystack.chars();
            needle.chars().all(|c| rest.any(|h| h == c))
        }

        fn injection() -> impl Strategy<Value = String> {
            prop::collection::vec(
                prop_oneof![
                    prop::sample::select(vec![
                        "'",
                        "\"",
                        ";",
                        "--",
                        "$1",
                        "(",
                        ")",
                        " ",
                        ",",
                        "\\",
                        "/*",
                        "*/",
                        "drop table x",
                        "or 1=1",
                        "select",
                        "eq.",
                        "&",
                        "=",
                        "%",
                        "'::text",
                        "$$",
                        "E'\\x'",
                        "a",
                        ".",
                        "::",
                    ])
                    .prop_map(String::from),
                ],
                0..8,
            )
            .prop_map(|parts| parts.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(400))]

            #[test]
            fn select_round_trips(items in select_items()) {
                let text = print_select(&items);
                let parsed = QueryParams::parse(&query(&[("select", &text)]), ParseMode::Relation);
                prop_assert_eq!(parsed.map(|p| p.select), Ok(items), "{}", text);
            }

            #[test]
            fn filter_round_trips(path in prop::collection::vec("[a-z]{1,3}", 0..2), filter in filter()) {
                let (key, value) = print_filter(&filter);
                let key = path.iter().map(|p| format!("{p}.")).collect::<String>() + &key;
                let parsed = QueryParams::parse(&query(&[(&key, &value)]), ParseMode::Relation);
                prop_assert_eq!(parsed.map(|p| p.filters), Ok(vec![(path, filter)]), "{}={}", key, value);
            }

            #[test]
            fn logic_round_trips(tree in logic_tree()) {
                let LogicTree::Node { negated, operator, .. } = &tree else { unreachable!() };
                let key = format!(
                    "{}{}",
                    if *negated { "not." } else { "" },
                    if *operator == LogicOperator::And { "and" } else { "or" }
                );
                let value = print_logic(&tree);
                let parsed = QueryParams::parse(&query(&[(&key, &value)]), ParseMode::Relation);
                prop_assert_eq!(parsed.map(|p| p.logic), Ok(vec![(vec![], tree)]), "{}={}", key, value);
            }

            #[test]
            fn order_round_trips(terms in order_terms()) {
                let text = print_order(&terms);
                let parsed = QueryParams::parse(&query(&[("order", &text)]), ParseMode::Relation);
                prop_assert_eq!(parsed.map(|p| p.order), Ok(vec![(vec![], terms)]), "{}", text);
            }

            #[test]
            fn the_comparison_shortcut_agrees_with_the_full_parser(
                operator in prop::sample::select(
                    SIMPLE_OPERATORS.iter().chain(QUANTIFIABLE_OPERATORS).map(|(name, _)| *name)
                        .chain(["in", "is", "not", "fts", "isdistinct", "EQ", "e", ""])
                        .collect::<Vec<_>>()
                ),
                rest in prop_oneof![any_text(12), tricky_text()],
            ) {
                for text in [format!("{operator}.{rest}"), format!("{operator}{rest}"), rest.clone()] {
                    if let Some(fast) = simple_comparison(&text) {
                        let full = run(op_expr(single_value), String::new, &text);
                        prop_assert_eq!(Ok((false, fast)), full, "{}", text);
                    }
                }
            }

            #[test]
            fn the_column_shortcut_agrees_with_the_full_parser(key in prop_oneof![
                "[A-Za-z0-9_$]{1,10}".boxed(),
                any_text(8).boxed(),
                tricky_text().boxed(),
            ]) {
                if is_simple_column(&key) {
                    let full = run(tree_path, String::new, &key);
                    prop_assert_eq!(Ok((Vec::new(), Field::column(key.as_str()))), full, "{}", key);
                }
            }

            #[test]
            fn cached_selects_are_the_parsed_ones(items in select_items()) {
                let text = print_select(&items);
                let first = QueryParams::parse(&query(&[("select", &text)]), ParseMode::Relation).map(|p| p.select);
                let again = QueryParams::parse(&query(&[("select", &text)]), ParseMode::Relation).map(|p| p.select);
                prop_assert_eq!(&first, &again);
                prop_assert_eq!(first, Ok(items));
            }

            #[test]
            fn arbitrary_values_never_panic(
                key in prop::sample::select(vec![
                    "select", "order", "or", "and", "not.or", "a.b.and", "columns", "on_conflict", "limit",
                    "offset", "r.limit", "id", "a.b->c", "x",
                ]),
                value in prop_oneof![any_text(40), tricky_text(), "[a-z(),.:!*\"\\\\>{} -]{0,30}"],
            ) {
                let raw = query(&[(key, &value)]);
                let _ = QueryParams::parse(&raw, ParseMode::Relation);
                let _ = QueryParams::parse(&raw, ParseMode::RpcRead);
                let raw = query(&[(&value, "eq.1"), (&format!("{value}.order"), "id"), (&format!("{value}.or"), "(a.eq.1)")]);
                let _ = QueryParams::parse(&raw, ParseMode::Relation);
            }

            #[test]
            fn arbitrary_raw_queries_never_panic(raw in prop_oneof![any_text(60), "[%&=;+a-z0-9(),.\"A-F]{0,40}"]) {
                let _ = QueryParams::parse(&raw, ParseMode::Relation);
                let _ = QueryParams::parse(&raw, ParseMode::RpcRead);
            }

            #[test]
            fn injection_shaped_text_stays_data(payload in injection(), other in injection()) {
                // Filter values are verbatim.
                let params = QueryParams::parse(&query(&[("col", &format!("eq.{payload}"))]), ParseMode::Relation).unwrap();
                prop_assert_eq!(&params.filters[0].1.operation, &compare(Operator::Eq, &payload));
                // Quoted names and list elements are exactly the text.
                let quoted = quote(&payload);
                let params = QueryParams::parse(
                    &query(&[
                        (&quoted, &format!("not.in.({},{})", quote(&payload), quote(&other))),
                        ("select", &format!("{quoted},{}:x", quote(&other))),
                    ]),
                    ParseMode::Relation,
                ).unwrap();
                prop_assert_eq!(&params.filters[0].1.field.name, &payload);
                prop_assert_eq!(&params.filters[0].1.operation, &Operation::In(vec![payload.clone(), other.clone()]));
                let expected_first = if payload == "*" { SelectItem::Star } else { item(&payload) };
                prop_assert_eq!(&params.select[0], &expected_first);
                // Anywhere else: an error, or only text taken from the input.
                for key in ["select", "order", "or", "columns", "on_conflict", "limit", "col"] {
                    for value in [payload.clone(), format!("({payload})"), format!("a.eq.{payload}"), format!("{payload}({other})")] {
                        let raw = query(&[(key, &value), (&payload, &other)]);
                        for mode in [ParseMode::Relation, ParseMode::RpcRead] {
                            if let Ok(params) = QueryParams::parse(&raw, mode) {
                                let input = format!("{key}={value}&{payload}={other}");
                                for text in texts(&params) {
                                    prop_assert!(
                                        is_subsequence(&text, &input),
                                        "{:?} not from {:?}",
                                        text,
                                        input
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
