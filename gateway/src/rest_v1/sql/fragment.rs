//! SQL text plus its parameters, built so that client input can only ever be a parameter.
//!
//! * Identifiers reach SQL only through [`ident`], the one audited quoting function, and
//!   only after `plan` found them in the schema cache.
//! * Every value the client sends is a parameter ([`SqlBuilder::param`]), transmitted in
//!   text format with its type left for the server to infer from context — the same
//!   semantics as an untyped SQL literal, so `id=eq.5` compares an integer column with 5
//!   and `id=eq.x` fails with Postgres' own `22P02`.
//! * Fixed SQL (keywords, operators from a closed list) is appended with [`SqlBuilder::push`].

use bytes::BytesMut;
use tokio_postgres::types::{Format, IsNull, ToSql, Type, to_sql_checked};

/// Quotes an identifier: wraps it in double quotes and doubles inner quotes. NUL cannot be
/// represented and is removed (Postgres would reject the statement anyway).
pub fn ident(name: &str) -> String {
    let mut quoted = String::with_capacity(name.len() + 2);
    push_ident(&mut quoted, name);
    quoted
}

/// The quoting itself, appended to `out`: [`ident`], [`qualified`], [`SqlBuilder::ident`]
/// and the request's `search_path` all go through it, so there is one place that decides
/// how a name becomes SQL.
pub fn push_ident(out: &mut String, name: &str) {
    out.push('"');
    if !name.bytes().any(|b| b == b'"' || b == 0) {
        out.push_str(name);
        out.push('"');
        return;
    }
    for c in name.chars() {
        match c {
            '"' => out.push_str("\"\""),
            '\0' => {}
            other => out.push(other),
        }
    }
    out.push('"');
}

/// `"schema"."name"`.
pub fn qualified(schema: &str, name: &str) -> String {
    let mut quoted = String::with_capacity(schema.len() + name.len() + 5);
    push_ident(&mut quoted, schema);
    quoted.push('.');
    push_ident(&mut quoted, name);
    quoted
}

/// A parameter value sent in text format, whatever type the server infers for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextParam(pub String);

impl ToSql for TextParam {
    fn to_sql(
        &self,
        _ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        out.extend_from_slice(self.0.as_bytes());
        Ok(IsNull::No)
    }

    fn accepts(_ty: &Type) -> bool {
        true
    }

    fn encode_format(&self, _ty: &Type) -> Format {
        Format::Text
    }

    to_sql_checked!();
}

/// Accumulates SQL text and parameters. Where each placeholder goes is recorded beside the
/// text (byte offset, parameter index), so builders can be combined with
/// [`SqlBuilder::extend`] and numbered `$n` once, at the end, without scanning the text.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SqlBuilder {
    sql: String,
    params: Vec<TextParam>,
    /// `(offset in sql, index in params)`, in text order.
    placeholders: Vec<(usize, usize)>,
}

impl SqlBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty builder with room for `bytes` of SQL (statements are built by appending;
    /// starting at their usual size saves growing the text again and again).
    pub fn with_capacity(bytes: usize) -> Self {
        Self {
            sql: String::with_capacity(bytes),
            ..Self::default()
        }
    }

    /// Appends fixed SQL. Never call this with client input.
    pub fn push(&mut self, sql: &str) -> &mut Self {
        self.sql.push_str(sql);
        self
    }

    /// Appends a quoted identifier.
    pub fn ident(&mut self, name: &str) -> &mut Self {
        push_ident(&mut self.sql, name);
        self
    }

    /// Appends each item with `write`, `separator` between them (column lists and the like).
    pub fn push_separated<T>(
        &mut self,
        items: impl IntoIterator<Item = T>,
        separator: &str,
        mut write: impl FnMut(&mut Self, T),
    ) -> &mut Self {
        for (index, item) in items.into_iter().enumerate() {
            if index > 0 {
                self.sql.push_str(separator);
            }
            write(self, item);
        }
        self
    }

    /// Appends a placeholder for `value` (type inferred by the server).
    pub fn param(&mut self, value: impl Into<String>) -> &mut Self {
        self.placeholders.push((self.sql.len(), self.params.len()));
        self.params.push(TextParam(value.into()));
        self
    }

    /// Appends another builder's SQL and parameters.
    pub fn extend(&mut self, other: SqlBuilder) -> &mut Self {
        let (text_offset, param_offset) = (self.sql.len(), self.params.len());
        self.sql.push_str(&other.sql);
        self.placeholders.extend(
            other
                .placeholders
                .into_iter()
                .map(|(at, index)| (at + text_offset, index + param_offset)),
        );
        self.params.extend(other.params);
        self
    }

    /// Appends a placeholder with an explicit type: `$n::text`. `type_name` must be a
    /// fixed, trusted type name.
    pub fn typed_param(&mut self, value: impl Into<String>, type_name: &str) -> &mut Self {
        self.param(value);
        self.sql.push_str("::");
        self.sql.push_str(type_name);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.sql.is_empty() && self.params.is_empty()
    }

    /// The SQL with `$n` placeholders.
    pub fn sql(&self) -> String {
        let mut out = String::with_capacity(self.sql.len() + 4 * self.placeholders.len());
        let mut copied = 0;
        for &(at, index) in &self.placeholders {
            out.push_str(&self.sql[copied..at]);
            out.push('$');
            push_number(&mut out, index + 1);
            copied = at;
        }
        out.push_str(&self.sql[copied..]);
        out
    }

    pub fn params(&self) -> &[TextParam] {
        &self.params
    }

    pub fn into_parts(self) -> (String, Vec<TextParam>) {
        (self.sql(), self.params)
    }
}

/// Appends a parameter number in decimal, without the formatting machinery.
fn push_number(out: &mut String, number: usize) {
    out.push_str(itoa::Buffer::new().format(number));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_always_quoted_and_escaped() {
        assert_eq!(ident("users"), "\"users\"");
        assert_eq!(ident("Mixed Case"), "\"Mixed Case\"");
        assert_eq!(
            ident("x\"; drop table t; --"),
            "\"x\"\"; drop table t; --\""
        );
        assert_eq!(ident("a\0b"), "\"ab\"");
        assert_eq!(qualified("public", "t"), "\"public\".\"t\"");
    }

    #[test]
    fn values_become_numbered_parameters() {
        let mut sql = SqlBuilder::new();
        sql.push("SELECT * FROM t WHERE ")
            .ident("a")
            .push(" = ")
            .param("1'; drop table t; --")
            .push(" AND ")
            .ident("b")
            .push(" = ")
            .typed_param("k", "text");
        assert_eq!(
            sql.sql(),
            "SELECT * FROM t WHERE \"a\" = $1 AND \"b\" = $2::text"
        );
        assert_eq!(sql.params().len(), 2);
        assert_eq!(sql.params()[0].0, "1'; drop table t; --");
    }

    #[test]
    fn extended_builders_are_renumbered() {
        let mut inner = SqlBuilder::new();
        inner
            .ident("c$1")
            .push(" = ")
            .param("x")
            .push(" OR ")
            .param("y");
        let mut outer = SqlBuilder::new();
        outer.param("first").push(" AND (").extend(inner).push(")");
        assert_eq!(outer.sql(), "$1 AND (\"c$1\" = $2 OR $3)");
        let values: Vec<&str> = outer.params().iter().map(|p| p.0.as_str()).collect();
        assert_eq!(values, ["first", "x", "y"]);
    }

    #[test]
    fn nul_in_identifiers_cannot_forge_placeholders() {
        let mut sql = SqlBuilder::new();
        sql.ident("a\u{0}1\u{0}b").push(" = ").param("v");
        assert_eq!(sql.sql(), "\"a1b\" = $1");
    }

    #[test]
    fn separated_items_get_the_separator_only_between_them() {
        let mut sql = SqlBuilder::new();
        sql.push("(")
            .push_separated(["a", "b\"c"], ", ", |sql, name| {
                sql.ident(name);
            })
            .push(") VALUES (")
            .push_separated(["1", "2"], ", ", |sql, value| {
                sql.param(value);
            })
            .push(")")
            .push_separated(Vec::<&str>::new(), ", ", |sql, name| {
                sql.ident(name);
            });
        assert_eq!(sql.sql(), "(\"a\", \"b\"\"c\") VALUES ($1, $2)");
    }

    #[test]
    fn placeholders_land_where_they_were_added_after_any_nesting() {
        let mut innermost = SqlBuilder::new();
        innermost.param("c").push("::int");
        let mut inner = SqlBuilder::new();
        inner
            .push("f(")
            .param("b")
            .push(", ")
            .extend(innermost)
            .push(")");
        let mut outer = SqlBuilder::new();
        outer
            .extend(SqlBuilder::new())
            .param("a")
            .push(" < ")
            .extend(inner);
        outer.typed_param("d", "text");
        assert_eq!(outer.sql(), "$1 < f($2, $3::int)$4::text");
        let values: Vec<&str> = outer.params().iter().map(|p| p.0.as_str()).collect();
        assert_eq!(values, ["a", "b", "c", "d"]);
        assert!(SqlBuilder::new().is_empty());
        let mut only_param = SqlBuilder::new();
        only_param.param("x");
        assert!(!only_param.is_empty());
    }
}
