//! postgres_changes as Supabase Realtime offers them: a channel's bindings (event, schema,
//! table, filter) parsed with Supabase's rules and messages, the filters evaluated on a
//! changed row, and the `data` of a change as a subscriber's role sees it (its columns, the
//! 64-byte rule past 1 MiB, the primary-key errors). Capturing changes, resolving bindings
//! against the database and RLS are the gateway's ([`ChangeSource`]); a channel's resolved
//! subscriptions live in the [`crate::Hub`] as a [`ChangeListener`].

use std::cmp::Ordering;
use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc::UnboundedSender;

use crate::connection::Claims;
use crate::hub::Delivery;
use crate::policy::PolicyFuture;

/// A row past this size (its values as text) loses the values longer than
/// [`OVERSIZED_VALUE_BYTES`], with Supabase's 413 error.
pub const MAX_RECORD_BYTES: usize = 1_048_576;
pub const OVERSIZED_VALUE_BYTES: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ChangeKind {
    Insert,
    Update,
    Delete,
}

impl ChangeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::Insert => "INSERT",
            ChangeKind::Update => "UPDATE",
            ChangeKind::Delete => "DELETE",
        }
    }
}

/// A filter's operator (the ones Supabase has always offered, plus `is` and `isdistinct`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Neq,
    Lt,
    Lte,
    Gt,
    Gte,
    In,
    Is,
    IsDistinct,
}

impl Op {
    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "eq" => Op::Eq,
            "neq" => Op::Neq,
            "lt" => Op::Lt,
            "lte" => Op::Lte,
            "gt" => Op::Gt,
            "gte" => Op::Gte,
            "in" => Op::In,
            "is" => Op::Is,
            "isdistinct" => Op::IsDistinct,
            _ => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Op::Eq => "eq",
            Op::Neq => "neq",
            Op::Lt => "lt",
            Op::Lte => "lte",
            Op::Gt => "gt",
            Op::Gte => "gte",
            Op::In => "in",
            Op::Is => "is",
            Op::IsDistinct => "isdistinct",
        }
    }
}

/// One `column=[not.]op.value` segment as the client wrote it. `in` values are a
/// PostgreSQL array literal (`{a,b}`), as Supabase turns `(a,b)` into.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterSpec {
    pub column: String,
    pub op: Op,
    pub value: String,
    pub negate: bool,
}

/// A filter whose value the database has read as the column's type (`to_jsonb`), so it
/// compares with the row's values as they are sent.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    pub column: String,
    pub op: Op,
    /// `in`: an array; `is`: `null`, `true`, `false` or `"unknown"`.
    pub value: Value,
    pub negate: bool,
}

/// One `postgres_changes` entry of a join, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    /// The id echoed in the join reply and sent in each change's `ids`.
    pub id: u64,
    /// `None`: every event (`*`).
    pub event: Option<ChangeKind>,
    pub schema: String,
    /// `None`: every table of the schema (`*` or no table).
    pub table: Option<String>,
    pub filters: Vec<FilterSpec>,
}

impl Binding {
    /// How Supabase prints a subscription's parameters in its error messages.
    pub fn describe(&self) -> String {
        let filters: Vec<String> = self
            .filters
            .iter()
            .map(|filter| {
                format!(
                    "{{{}, {}, {}, {}}}",
                    inspect(&filter.column),
                    inspect(filter.op.as_str()),
                    inspect(&filter.value),
                    filter.negate
                )
            })
            .collect();
        format!(
            "[event: {}, schema: {}, table: {}, filters: [{}], select: nil]",
            self.event.map_or("*", ChangeKind::as_str),
            self.schema,
            self.table.as_deref().unwrap_or("*"),
            filters.join(", ")
        )
    }
}

/// A binding the database accepted: its filters with typed values.
#[derive(Debug, Clone, PartialEq)]
pub struct Subscription {
    pub id: u64,
    pub event: Option<ChangeKind>,
    pub schema: String,
    pub table: Option<String>,
    pub filters: Vec<Filter>,
}

impl Subscription {
    /// Whether `change` is for this subscription: its event, table and filters. A delete is
    /// tried on what the old row holds.
    pub fn wants(&self, change: &Change) -> bool {
        if self.event.is_some_and(|event| event != change.kind) || self.schema != change.schema {
            return false;
        }
        if self
            .table
            .as_ref()
            .is_some_and(|table| *table != change.table)
        {
            return false;
        }
        let row = match change.kind {
            ChangeKind::Delete => change.old_record.as_ref(),
            _ => change.record.as_ref(),
        };
        self.filters
            .iter()
            .all(|filter| row.is_some_and(|row| filter.matches(row.get(&filter.column))))
    }
}

/// A channel's subscriptions, with where its changes go.
#[derive(Debug, Clone)]
pub struct ChangeListener {
    pub queue: UnboundedSender<Delivery>,
    /// The channel's full topic (`realtime:<name>`) and join ref.
    pub topic: String,
    pub join_ref: String,
    pub claims: Claims,
    pub subscriptions: Vec<Subscription>,
}

/// Why bindings were not subscribed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubscribeError {
    /// Told in the `postgres_changes` system message; the channel stays joined.
    Refused(String),
    /// The database cannot be reached: the join is refused (realtime-js tries again).
    Unavailable,
}

/// Turns bindings into subscriptions: the tables must be in the `supabase_realtime`
/// publication and the filters' columns and values must fit.
pub trait ChangeSource: Send + Sync {
    fn resolve<'a>(
        &'a self,
        bindings: &'a [Binding],
    ) -> PolicyFuture<'a, Result<Vec<Subscription>, SubscribeError>>;
}

/// A column of a changed table: its name and `pg_type.typname`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Column {
    pub name: String,
    #[serde(rename = "type")]
    pub type_name: String,
}

/// A committed row change, its values already as JSON (`to_jsonb`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    pub schema: String,
    pub table: String,
    #[serde(rename = "type")]
    pub kind: ChangeKind,
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    pub commit_timestamp: String,
    /// Every column of the table, in attnum order.
    pub columns: Vec<Column>,
    /// The primary key's columns (none: the table has no primary key).
    pub primary_key: Vec<String>,
    /// Whether the table has row level security on (then inserts and updates are checked
    /// against each subscriber, and a delete's old row is cut to the primary key).
    pub row_security: bool,
    pub record: Option<Map<String, Value>>,
    pub old_record: Option<Map<String, Value>>,
}

impl Change {
    /// Whether the row is over Supabase's limit, measured on its values as text.
    fn oversized(&self) -> bool {
        let size = |row: &Option<Map<String, Value>>| {
            row.as_ref().map_or(0, |row| {
                row.iter()
                    .map(|(name, value)| name.len() + value_text_len(value))
                    .sum::<usize>()
            })
        };
        size(&self.record) + size(&self.old_record) > MAX_RECORD_BYTES
    }

    /// The change's `data` for a role that may read `readable` columns (`None`: all).
    pub fn data_for(&self, readable: Option<&HashSet<String>>) -> Value {
        let can_read = |name: &str| readable.is_none_or(|columns| columns.contains(name));
        let header = |errors: &str| {
            let mut data = json!({
                "schema": self.schema,
                "table": self.table,
                "type": self.kind.as_str(),
                "commit_timestamp": Value::Null,
                "columns": [],
                "errors": [errors],
            });
            match self.kind {
                ChangeKind::Insert => data["record"] = json!({}),
                ChangeKind::Update => {
                    data["record"] = json!({});
                    data["old_record"] = json!({});
                }
                ChangeKind::Delete => data["old_record"] = json!({}),
            }
            data
        };
        if self.kind != ChangeKind::Delete {
            if self.primary_key.is_empty() {
                return header("Error 400: Bad Request, no primary key");
            }
            if !self.primary_key.iter().all(|key| can_read(key)) {
                return header("Error 401: Unauthorized");
            }
        }
        let oversized = self.oversized();
        let keep = |name: &str, value: &Value| {
            can_read(name) && (!oversized || value_text_len(value) <= OVERSIZED_VALUE_BYTES)
        };
        let filtered = |row: &Map<String, Value>| -> Map<String, Value> {
            row.iter()
                .filter(|(name, value)| keep(name, value))
                .map(|(name, value)| (name.clone(), value.clone()))
                .collect()
        };
        let columns: Vec<&Column> = self
            .columns
            .iter()
            .filter(|column| can_read(&column.name))
            .collect();
        let mut data = json!({
            "schema": self.schema,
            "table": self.table,
            "type": self.kind.as_str(),
            "commit_timestamp": self.commit_timestamp,
            "columns": columns,
            "errors": if oversized { json!(["Error 413: Payload Too Large"]) } else { Value::Null },
        });
        if self.kind != ChangeKind::Delete {
            data["record"] = Value::Object(self.record.as_ref().map(filtered).unwrap_or_default());
        }
        if self.kind != ChangeKind::Insert {
            let mut old = self.old_record.as_ref().map(filtered).unwrap_or_default();
            if self.kind == ChangeKind::Delete && self.row_security {
                old.retain(|name, _| self.primary_key.contains(name));
            }
            data["old_record"] = Value::Object(old);
        }
        data
    }
}

/// `octet_length(value::text)` of a jsonb value.
fn value_text_len(value: &Value) -> usize {
    value.to_string().len()
}

impl Filter {
    /// SQL's rule: a comparison with NULL is not true, negated or not.
    fn matches(&self, value: Option<&Value>) -> bool {
        let Some(value) = value else {
            return false;
        };
        let result = match self.op {
            Op::Is => match &self.value {
                Value::Null => Some(value.is_null()),
                Value::Bool(expected) => Some(value.as_bool() == Some(*expected)),
                // `unknown` is a NULL boolean.
                _ => Some(value.is_null()),
            },
            Op::IsDistinct => Some(!same(value, &self.value)),
            _ if value.is_null() => None,
            Op::Eq => Some(same(value, &self.value)),
            Op::Neq => Some(!same(value, &self.value)),
            Op::In => {
                let options = self.value.as_array().map(Vec::as_slice).unwrap_or_default();
                if options.iter().any(|option| same(value, option)) {
                    Some(true)
                } else if options.iter().any(Value::is_null) {
                    None
                } else {
                    Some(false)
                }
            }
            Op::Lt | Op::Lte | Op::Gt | Op::Gte => {
                compare(value, &self.value).map(|order| match self.op {
                    Op::Lt => order == Ordering::Less,
                    Op::Lte => order != Ordering::Greater,
                    Op::Gt => order == Ordering::Greater,
                    _ => order != Ordering::Less,
                })
            }
        };
        result.is_some_and(|result| result != self.negate)
    }
}

fn same(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(_), Value::Number(_)) => compare(left, right) == Some(Ordering::Equal),
        _ => left == right,
    }
}

/// Ordering of two values of one column: numbers by value, text (and dates and times,
/// which are ISO text) by bytes, booleans false before true.
fn compare(left: &Value, right: &Value) -> Option<Ordering> {
    match (left, right) {
        (Value::Number(left), Value::Number(right)) => {
            if let (Some(left), Some(right)) = (left.as_i64(), right.as_i64()) {
                return Some(left.cmp(&right));
            }
            left.as_f64()?.partial_cmp(&right.as_f64()?)
        }
        (Value::String(left), Value::String(right)) => Some(left.as_bytes().cmp(right.as_bytes())),
        (Value::Bool(left), Value::Bool(right)) => Some(left.cmp(right)),
        (Value::Null, _) | (_, Value::Null) => None,
        _ => Some(left.to_string().cmp(&right.to_string())),
    }
}

/// Elixir's `inspect` of a string, as Supabase's messages print them.
fn inspect(text: &str) -> String {
    format!("{:?}", text)
}

/// Parses a channel's `postgres_changes` entries: each entry echoed with its id (for the
/// join reply), and the parsed bindings or the first entry's error (the system message).
pub fn parse_bindings(entries: &[Value]) -> (Vec<Value>, Result<Vec<Binding>, String>) {
    let mut echoed = Vec::new();
    let mut bindings = Ok(Vec::new());
    for entry in entries {
        let Some(object) = entry.as_object() else {
            continue;
        };
        let entry: Map<String, Value> = object
            .iter()
            .filter(|(_, value)| !value.is_null())
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        let id = binding_id(&entry);
        let parsed = parse_binding(id, &entry);
        let mut with_id = entry;
        with_id.insert("id".into(), json!(id));
        echoed.push(Value::Object(with_id));
        if let Ok(list) = &mut bindings {
            match parsed {
                Ok(binding) => list.push(binding),
                Err(error) => bindings = Err(error),
            }
        }
    }
    (echoed, bindings)
}

/// A binding's id: a stable hash of the entry as the client sent it, below 2^27 as Supabase's.
fn binding_id(entry: &Map<String, Value>) -> u64 {
    let text = Value::Object(entry.clone()).to_string();
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    hash % (1 << 27)
}

fn parse_binding(id: u64, entry: &Map<String, Value>) -> Result<Binding, String> {
    let event = match entry.get("event").and_then(Value::as_str) {
        Some(event) if event.eq_ignore_ascii_case("insert") => Some(ChangeKind::Insert),
        Some(event) if event.eq_ignore_ascii_case("update") => Some(ChangeKind::Update),
        Some(event) if event.eq_ignore_ascii_case("delete") => Some(ChangeKind::Delete),
        _ => None,
    };
    let schema = entry.get("schema").and_then(Value::as_str);
    let table = entry.get("table").and_then(Value::as_str);
    let filter = entry.get("filter").and_then(Value::as_str);
    let (schema, table, filters) = match (schema, table, filter) {
        (Some(schema), Some(table), filter) => {
            let filters = match filter {
                Some(filter) => parse_filter(filter)
                    .map_err(|reason| format!("Error parsing `filter` params: {reason}"))?,
                None => Vec::new(),
            };
            (schema, Some(table), filters)
        }
        (Some(schema), None, None) => (schema, None, Vec::new()),
        (None, Some(table), None) => ("public", Some(table), Vec::new()),
        _ => {
            return Err(format!(
                "No subscription params provided. Please provide at least a `schema` or `table` to subscribe to: {}",
                Value::Object(entry.clone())
            ));
        }
    };
    if entry.contains_key("select") {
        return Err(
            "Error parsing `select` params: column selection is not supported by this server"
                .into(),
        );
    }
    Ok(Binding {
        id,
        event,
        schema: schema.to_owned(),
        table: table.filter(|table| *table != "*").map(str::to_owned),
        filters,
    })
}

/// Parses a `filter` string: comma-separated segments (commas inside quotes or parentheses
/// kept), each `column=[not.]op.value`. An empty filter is none.
pub fn parse_filter(filter: &str) -> Result<Vec<FilterSpec>, String> {
    let filter = filter.trim();
    if filter.is_empty() {
        return Ok(Vec::new());
    }
    split_top_level(filter)
        .iter()
        .map(|segment| parse_segment(segment))
        .collect()
}

fn split_top_level(filter: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let (mut depth, mut quoted, mut previous) = (0_usize, false, '\0');
    let mut chars = filter.chars();
    while let Some(c) = chars.next() {
        if quoted {
            current.push(c);
            if c == '\\' {
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            } else if c == '"' {
                quoted = false;
            }
            previous = c;
            continue;
        }
        match c {
            '"' if matches!(previous, '.' | '(' | ',') => quoted = true,
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                segments.push(std::mem::take(&mut current));
                previous = '\0';
                continue;
            }
            _ => {}
        }
        current.push(c);
        previous = c;
    }
    segments.push(current);
    segments
}

fn parse_segment(segment: &str) -> Result<FilterSpec, String> {
    let segment = segment.trim();
    if segment.is_empty() {
        return Err("filter must not contain empty segments (check for extra commas)".into());
    }
    let Some((column, rest)) = segment.split_once('=') else {
        return Err(format!("[{}]", inspect(segment)));
    };
    let (negate, op_value) = match rest.strip_prefix("not.") {
        Some(op_value) => (true, op_value),
        None => (false, rest),
    };
    let Some((op, value)) = op_value.split_once('.') else {
        return Err(format!("[{}]", inspect(op_value)));
    };
    let Some(parsed) = Op::parse(op) else {
        return Err(if matches!(op, "like" | "ilike" | "match" | "imatch") {
            format!("operator {op} is not supported by this server")
        } else {
            format!("[{}, {}]", inspect(op), inspect(value))
        });
    };
    let value = if parsed == Op::In {
        let inner = value
            .strip_prefix('(')
            .and_then(|value| value.strip_suffix(')'))
            .ok_or("`in` filter value must be wrapped by parentheses")?;
        format!("{{{inner}}}")
    } else {
        unquote(value)
    };
    Ok(FilterSpec {
        column: column.to_owned(),
        op: parsed,
        value,
        negate,
    })
}

/// A `"quoted"` value without its quotes and with its backslash escapes read; anything
/// else as it is.
fn unquote(value: &str) -> String {
    let Some(rest) = value.strip_prefix('"') else {
        return value.to_owned();
    };
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(next) => out.push(next),
                None => return value.to_owned(),
            },
            '"' => {
                return if chars.next().is_none() {
                    out
                } else {
                    value.to_owned()
                };
            }
            other => out.push(other),
        }
    }
    value.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(column: &str, op: Op, value: &str, negate: bool) -> FilterSpec {
        FilterSpec {
            column: column.into(),
            op,
            value: value.into(),
            negate,
        }
    }

    #[test]
    fn filters_parse_as_supabase_parses_them() {
        assert_eq!(parse_filter(" "), Ok(vec![]));
        assert_eq!(
            parse_filter("room_id=eq.1"),
            Ok(vec![spec("room_id", Op::Eq, "1", false)])
        );
        assert_eq!(
            parse_filter("id=gt.0,id=not.lt.100"),
            Ok(vec![
                spec("id", Op::Gt, "0", false),
                spec("id", Op::Lt, "100", true)
            ])
        );
        assert_eq!(
            parse_filter("name=in.(ana,\"b, c\")"),
            Ok(vec![spec("name", Op::In, "{ana,\"b, c\"}", false)])
        );
        assert_eq!(
            parse_filter("body=eq.\"a,b\\\"c\""),
            Ok(vec![spec("body", Op::Eq, "a,b\"c", false)])
        );
        assert_eq!(parse_filter("id=foo.1"), Err(r#"["foo", "1"]"#.into()));
        assert_eq!(parse_filter("undefined"), Err(r#"["undefined"]"#.into()));
        assert_eq!(
            parse_filter("id=in.1,2"),
            Err("`in` filter value must be wrapped by parentheses".into())
        );
        assert_eq!(
            parse_filter("a=eq.1,,b=eq.2"),
            Err("filter must not contain empty segments (check for extra commas)".into())
        );
    }

    #[test]
    fn bindings_are_echoed_with_ids_and_parsed() {
        let entries = vec![
            json!({"event": "*", "schema": "public", "table": "t", "filter": "id=eq.1"}),
            json!({"event": "INSERT", "schema": "public", "table": "t", "filter": null}),
        ];
        let (echoed, parsed) = parse_bindings(&entries);
        assert_eq!(echoed[0]["filter"], "id=eq.1");
        assert!(echoed[1].get("filter").is_none(), "nulls are dropped");
        let parsed = parsed.unwrap();
        assert_eq!(parsed[0].id, echoed[0]["id"].as_u64().unwrap());
        assert_eq!(parsed[1].event, Some(ChangeKind::Insert));
        assert!(parsed[0].id < 1 << 27);
        let (_, refused) = parse_bindings(&[json!({"event": "*"})]);
        assert!(
            refused
                .unwrap_err()
                .starts_with("No subscription params provided")
        );
        let (_, refused) = parse_bindings(&[
            json!({"event": "*", "schema": "public", "table": "t", "filter": "x"}),
        ]);
        assert_eq!(
            refused.unwrap_err(),
            r#"Error parsing `filter` params: ["x"]"#
        );
    }

    fn filter(op: Op, value: Value, negate: bool) -> Filter {
        Filter {
            column: "n".into(),
            op,
            value,
            negate,
        }
    }

    #[test]
    fn filters_compare_typed_values_and_null_never_matches() {
        let n = json!(5);
        assert!(filter(Op::Eq, json!(5.0), false).matches(Some(&n)));
        assert!(filter(Op::Lt, json!(10), false).matches(Some(&n)));
        assert!(!filter(Op::Lt, json!(10), true).matches(Some(&n)));
        assert!(filter(Op::Gte, json!(5), false).matches(Some(&n)));
        assert!(filter(Op::In, json!([1, 5]), false).matches(Some(&n)));
        assert!(filter(Op::In, json!([1, 2]), true).matches(Some(&n)));
        assert!(!filter(Op::Eq, json!(5), false).matches(Some(&Value::Null)));
        assert!(!filter(Op::Neq, json!(5), true).matches(Some(&Value::Null)));
        assert!(filter(Op::Is, Value::Null, false).matches(Some(&Value::Null)));
        assert!(filter(Op::IsDistinct, json!(5), false).matches(Some(&Value::Null)));
        assert!(!filter(Op::Eq, json!(5), false).matches(None));
        let day = json!("2025-03-10");
        assert!(filter(Op::Gt, json!("2025-03-01"), false).matches(Some(&day)));
    }

    fn change(kind: ChangeKind) -> Change {
        Change {
            schema: "public".into(),
            table: "notes".into(),
            kind,
            commit_timestamp: "2025-03-10T12:00:00.000Z".into(),
            columns: vec![
                Column {
                    name: "id".into(),
                    type_name: "int8".into(),
                },
                Column {
                    name: "body".into(),
                    type_name: "text".into(),
                },
            ],
            primary_key: vec!["id".into()],
            row_security: true,
            record: Some(
                json!({"id": 1, "body": "hola"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
            old_record: Some(
                json!({"id": 1, "body": "chao"})
                    .as_object()
                    .unwrap()
                    .clone(),
            ),
        }
    }

    #[test]
    fn data_has_the_keys_of_each_event() {
        let insert = change(ChangeKind::Insert).data_for(None);
        assert_eq!(insert["record"], json!({"id": 1, "body": "hola"}));
        assert!(insert.get("old_record").is_none());
        assert_eq!(insert["errors"], Value::Null);
        assert_eq!(insert["columns"][0], json!({"name": "id", "type": "int8"}));
        let delete = change(ChangeKind::Delete).data_for(None);
        assert!(delete.get("record").is_none());
        assert_eq!(
            delete["old_record"],
            json!({"id": 1}),
            "RLS cuts it to the key"
        );
        let readable: HashSet<String> = ["id".to_owned()].into();
        let update = change(ChangeKind::Update).data_for(Some(&readable));
        assert_eq!(update["record"], json!({"id": 1}));
        assert_eq!(update["columns"].as_array().unwrap().len(), 1);
        let hidden_key: HashSet<String> = ["body".to_owned()].into();
        let refused = change(ChangeKind::Insert).data_for(Some(&hidden_key));
        assert_eq!(refused["errors"], json!(["Error 401: Unauthorized"]));
        assert_eq!(refused["record"], json!({}));
        let mut keyless = change(ChangeKind::Insert);
        keyless.primary_key.clear();
        assert_eq!(
            keyless.data_for(None)["errors"],
            json!(["Error 400: Bad Request, no primary key"])
        );
    }

    #[test]
    fn an_oversized_row_keeps_only_short_values() {
        let mut big = change(ChangeKind::Insert);
        big.record
            .as_mut()
            .unwrap()
            .insert("body".into(), json!("x".repeat(MAX_RECORD_BYTES)));
        let data = big.data_for(None);
        assert_eq!(data["errors"], json!(["Error 413: Payload Too Large"]));
        assert_eq!(data["record"], json!({"id": 1}));
    }

    #[test]
    fn subscriptions_match_event_table_and_filters() {
        let subscription = Subscription {
            id: 1,
            event: None,
            schema: "public".into(),
            table: Some("notes".into()),
            filters: vec![Filter {
                column: "id".into(),
                op: Op::Eq,
                value: json!(1),
                negate: false,
            }],
        };
        assert!(subscription.wants(&change(ChangeKind::Insert)));
        assert!(subscription.wants(&change(ChangeKind::Delete)));
        let mut other = change(ChangeKind::Update);
        other.record.as_mut().unwrap().insert("id".into(), json!(2));
        assert!(!subscription.wants(&other));
        let inserts_only = Subscription {
            event: Some(ChangeKind::Insert),
            ..subscription
        };
        assert!(!inserts_only.wants(&change(ChangeKind::Update)));
    }
}
