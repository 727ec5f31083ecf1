//! Reads the output columns of a view from its rewrite rule (`pg_rewrite.ev_action`).
//!
//! For a column that is a plain reference to a table column, PostgreSQL records the origin
//! in the target entry (`:resorigtbl` / `:resorigcol`). Only the *top-level* query's target
//! list describes the view's columns — subqueries have target lists of their own — so the
//! text is parsed into a tree rather than searched with patterns.
//!
//! Format (PostgreSQL `outfuncs.c`): `{NODE :field value ...}` nodes, `(...)` lists, `<>` for
//! NULL, bare tokens with backslash escapes, `"..."` strings, and `[ ... ]` datum bytes.

use std::collections::HashMap;

/// One output column of a view and where it comes from, if it is a plain column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewColumn {
    pub number: i16,
    pub name: String,
    /// `(relation oid, attribute number)` of the source column.
    pub origin: Option<(u32, i16)>,
}

#[derive(Debug, Clone, PartialEq)]
enum Value {
    Node(String, HashMap<String, Vec<Value>>),
    List(Vec<Value>),
    Atom(String),
    Null,
}

struct Parser<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        while self.chars.peek().is_some_and(|c| c.is_whitespace()) {
            self.chars.next();
        }
    }

    /// A bare or quoted token, with escapes resolved.
    fn token(&mut self) -> String {
        let mut token = String::new();
        if self.chars.peek() == Some(&'"') {
            self.chars.next();
            while let Some(c) = self.chars.next() {
                match c {
                    '\\' => token.extend(self.chars.next()),
                    '"' => break,
                    other => token.push(other),
                }
            }
            return token;
        }
        while let Some(&c) = self.chars.peek() {
            if c.is_whitespace() || matches!(c, '{' | '}' | '(' | ')' | '[' | ']') {
                break;
            }
            self.chars.next();
            if c == '\\' {
                token.extend(self.chars.next());
            } else {
                token.push(c);
            }
        }
        token
    }

    fn value(&mut self) -> Option<Value> {
        self.skip_space();
        match *self.chars.peek()? {
            '{' => {
                self.chars.next();
                self.skip_space();
                let name = self.token();
                let mut fields: HashMap<String, Vec<Value>> = HashMap::new();
                let mut current: Option<String> = None;
                loop {
                    self.skip_space();
                    match self.chars.peek() {
                        None => break,
                        Some('}') => {
                            self.chars.next();
                            break;
                        }
                        Some(':') => {
                            self.chars.next();
                            let key = self.token();
                            fields.entry(key.clone()).or_default();
                            current = Some(key);
                        }
                        Some(_) => {
                            let value = self.value()?;
                            if let Some(key) = &current {
                                fields.entry(key.clone()).or_default().push(value);
                            }
                        }
                    }
                }
                Some(Value::Node(name, fields))
            }
            open @ ('(' | '[') => {
                self.chars.next();
                let close = if open == '(' { ')' } else { ']' };
                let mut items = Vec::new();
                loop {
                    self.skip_space();
                    match self.chars.peek() {
                        None => break,
                        Some(&c) if c == close => {
                            self.chars.next();
                            break;
                        }
                        Some(_) => items.push(self.value()?),
                    }
                }
                Some(Value::List(items))
            }
            '}' | ')' | ']' => {
                // Unbalanced input: consume and stop.
                self.chars.next();
                None
            }
            _ => {
                let token = self.token();
                Some(if token == "<>" {
                    Value::Null
                } else {
                    Value::Atom(token)
                })
            }
        }
    }
}

fn field<'v>(fields: &'v HashMap<String, Vec<Value>>, key: &str) -> Option<&'v Value> {
    fields.get(key).and_then(|values| values.first())
}

fn atom(fields: &HashMap<String, Vec<Value>>, key: &str) -> Option<String> {
    match field(fields, key)? {
        Value::Atom(text) => Some(text.clone()),
        _ => None,
    }
}

/// The view's columns, in order, from `ev_action` text. Unparsable text gives no columns
/// (the view then simply has no derived keys or relationships).
pub fn view_columns(ev_action: &str) -> Vec<ViewColumn> {
    let mut parser = Parser {
        chars: ev_action.chars().peekable(),
    };
    let Some(Value::List(queries)) = parser.value() else {
        return Vec::new();
    };
    let Some(Value::Node(_, query)) = queries.first() else {
        return Vec::new();
    };
    let Some(Value::List(entries)) = field(query, "targetList") else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let Value::Node(kind, fields) = entry else {
                return None;
            };
            if kind != "TARGETENTRY" || atom(fields, "resjunk").as_deref() == Some("true") {
                return None;
            }
            let number = atom(fields, "resno")?.parse().ok()?;
            let name = atom(fields, "resname")?;
            let table: u32 = atom(fields, "resorigtbl")
                .and_then(|t| t.parse().ok())
                .unwrap_or(0);
            let column: i16 = atom(fields, "resorigcol")
                .and_then(|c| c.parse().ok())
                .unwrap_or(0);
            Some(ViewColumn {
                number,
                name,
                origin: (table != 0 && column > 0).then_some((table, column)),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Shape of a real rule: a subquery in the range table has its own target list.
    const RULE: &str = r#"({QUERY :commandType 1 :utilityStmt <> :rtable ({RANGETBLENTRY :eref {ALIAS :aliasname sub :colnames ("id" "we\ ird")} :rtekind 1 :subquery {QUERY :commandType 1 :targetList ({TARGETENTRY :expr {VAR :varno 1} :resno 1 :resname id :resorigtbl 16937 :resorigcol 1 :resjunk false}) :sortClause <>}}) :targetList ({TARGETENTRY :expr {VAR :varno 3 :varattno 1 :location 33} :resno 1 :resname vid :ressortgroupref 0 :resorigtbl 16944 :resorigcol 1 :resjunk false} {TARGETENTRY :expr {CONST :consttype 23 :constlen 4 :constbyval true :constisnull false :location 61 :constvalue 4 [ 1 0 0 0 0 0 0 0 ]} :resno 2 :resname one :ressortgroupref 0 :resorigtbl 0 :resorigcol 0 :resjunk false} {TARGETENTRY :expr {VAR :varno 4} :resno 3 :resname we\ ird :resorigtbl 16937 :resorigcol 2 :resjunk false} {TARGETENTRY :expr {VAR :varno 4} :resno 4 :resname <> :resorigtbl 0 :resorigcol 0 :resjunk true}) :override 0})"#;

    #[test]
    fn reads_only_the_top_level_target_list() {
        assert_eq!(
            view_columns(RULE),
            vec![
                ViewColumn {
                    number: 1,
                    name: "vid".into(),
                    origin: Some((16944, 1))
                },
                ViewColumn {
                    number: 2,
                    name: "one".into(),
                    origin: None
                },
                ViewColumn {
                    number: 3,
                    name: "we ird".into(),
                    origin: Some((16937, 2))
                },
            ]
        );
    }

    #[test]
    fn garbage_gives_no_columns() {
        for text in [
            "",
            "(",
            "{QUERY",
            "({QUERY :targetList (",
            ")))",
            "({X})",
            "<>",
        ] {
            let _ = view_columns(text);
        }
        assert!(view_columns("({QUERY :targetList <>})").is_empty());
    }
}
