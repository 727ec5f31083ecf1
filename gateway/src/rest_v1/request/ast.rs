//! The parsed form of a rest/v1 query string: what the client asked for, before any name
//! is checked against the database.
//!
//! Every name here is still the client's text; `plan` resolves names against the schema
//! cache and rejects unknown ones. Values stay strings: the database parses them with the
//! input function of the column they are compared with, exactly like an untyped literal.

/// A column reference with an optional JSON path: `data->a->>b`, `tags->0`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: String,
    pub json_path: Vec<JsonStep>,
}

impl Field {
    pub fn column(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            json_path: Vec::new(),
        }
    }

    /// The key the value gets in the output object when it has no alias: the last JSON
    /// key or index, else the column name.
    pub fn output_name(&self) -> String {
        match self.json_path.last() {
            Some(step) => match step.key() {
                JsonKey::Key(key) => key.clone(),
                JsonKey::Index(index) => index.to_string(),
            },
            None => self.name.clone(),
        }
    }
}

/// One `->` (keeps JSON) or `->>` (extracts text) step.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JsonStep {
    Arrow(JsonKey),
    DoubleArrow(JsonKey),
}

impl JsonStep {
    pub fn key(&self) -> &JsonKey {
        match self {
            JsonStep::Arrow(key) | JsonStep::DoubleArrow(key) => key,
        }
    }
}

/// A JSON object key or array index (negative indices count from the end).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum JsonKey {
    Key(String),
    Index(i64),
}

/// Aggregate functions allowed in `select`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Aggregate {
    Count,
    Sum,
    Avg,
    Max,
    Min,
}

impl Aggregate {
    pub fn name(self) -> &'static str {
        match self {
            Aggregate::Count => "count",
            Aggregate::Sum => "sum",
            Aggregate::Avg => "avg",
            Aggregate::Max => "max",
            Aggregate::Min => "min",
        }
    }
}

/// How an embedded resource joins its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JoinType {
    /// `!inner`: parents without a match are left out.
    Inner,
    /// `!left` (the default).
    Left,
}

/// One item of `select`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectItem {
    /// `*`: every column.
    Star,
    /// A column (or JSON path into one), optionally renamed, cast and aggregated:
    /// `alias:col->k::text.sum()::int`.
    Field {
        field: Field,
        alias: Option<String>,
        cast: Option<String>,
        aggregate: Option<Aggregate>,
        aggregate_cast: Option<String>,
    },
    /// `count()` over the rows, without a column.
    Count {
        alias: Option<String>,
        cast: Option<String>,
    },
    /// An embedded resource: `alias:relation!hint!inner(select)`, or spread with `...`.
    Embed(Embed),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Embed {
    /// Table, view, foreign-key name or computed relationship the client named.
    pub relation: String,
    pub alias: Option<String>,
    /// `!hint`: a foreign-key constraint, a column, or a junction table name.
    pub hint: Option<String>,
    pub join: Option<JoinType>,
    /// `...relation(...)`: columns merged into the parent object.
    pub spread: bool,
    pub select: Vec<SelectItem>,
}

impl Embed {
    /// The key of the embedded value in the output (alias, else relation name).
    pub fn output_name(&self) -> &str {
        self.alias.as_deref().unwrap_or(&self.relation)
    }
}

/// Binary operators of filters.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operator {
    Eq,
    Neq,
    Gt,
    Gte,
    Lt,
    Lte,
    Like,
    Ilike,
    Match,
    Imatch,
    IsDistinct,
    Contains,
    ContainedIn,
    Overlap,
    StrictlyLeft,
    StrictlyRight,
    NotExtendRight,
    NotExtendLeft,
    Adjacent,
}

impl Operator {
    /// Operator name in the query string.
    pub fn name(self) -> &'static str {
        match self {
            Operator::Eq => "eq",
            Operator::Neq => "neq",
            Operator::Gt => "gt",
            Operator::Gte => "gte",
            Operator::Lt => "lt",
            Operator::Lte => "lte",
            Operator::Like => "like",
            Operator::Ilike => "ilike",
            Operator::Match => "match",
            Operator::Imatch => "imatch",
            Operator::IsDistinct => "isdistinct",
            Operator::Contains => "cs",
            Operator::ContainedIn => "cd",
            Operator::Overlap => "ov",
            Operator::StrictlyLeft => "sl",
            Operator::StrictlyRight => "sr",
            Operator::NotExtendRight => "nxr",
            Operator::NotExtendLeft => "nxl",
            Operator::Adjacent => "adj",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "eq" => Operator::Eq,
            "neq" => Operator::Neq,
            "gt" => Operator::Gt,
            "gte" => Operator::Gte,
            "lt" => Operator::Lt,
            "lte" => Operator::Lte,
            "like" => Operator::Like,
            "ilike" => Operator::Ilike,
            "match" => Operator::Match,
            "imatch" => Operator::Imatch,
            "isdistinct" => Operator::IsDistinct,
            "cs" => Operator::Contains,
            "cd" => Operator::ContainedIn,
            "ov" => Operator::Overlap,
            "sl" => Operator::StrictlyLeft,
            "sr" => Operator::StrictlyRight,
            "nxr" => Operator::NotExtendRight,
            "nxl" => Operator::NotExtendLeft,
            "adj" => Operator::Adjacent,
            _ => return None,
        })
    }

    /// The SQL operator.
    pub fn sql(self) -> &'static str {
        match self {
            Operator::Eq => "=",
            Operator::Neq => "<>",
            Operator::Gt => ">",
            Operator::Gte => ">=",
            Operator::Lt => "<",
            Operator::Lte => "<=",
            Operator::Like => "LIKE",
            Operator::Ilike => "ILIKE",
            Operator::Match => "~",
            Operator::Imatch => "~*",
            Operator::IsDistinct => "IS DISTINCT FROM",
            Operator::Contains => "@>",
            Operator::ContainedIn => "<@",
            Operator::Overlap => "&&",
            Operator::StrictlyLeft => "<<",
            Operator::StrictlyRight => ">>",
            Operator::NotExtendRight => "&<",
            Operator::NotExtendLeft => "&>",
            Operator::Adjacent => "-|-",
        }
    }

    /// Operators that accept the `(any)` / `(all)` quantifier.
    pub fn quantifiable(self) -> bool {
        matches!(
            self,
            Operator::Eq
                | Operator::Gt
                | Operator::Gte
                | Operator::Lt
                | Operator::Lte
                | Operator::Like
                | Operator::Ilike
                | Operator::Match
                | Operator::Imatch
        )
    }
}

/// `(any)` / `(all)` after an operator: compare with each element of an array literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Quantifier {
    Any,
    All,
}

/// Right-hand side of `is`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IsValue {
    Null,
    NotNull,
    True,
    False,
    Unknown,
}

/// Full-text search operators and the `to_tsquery` flavour each uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FtsOperator {
    /// `fts`: `to_tsquery`
    Fts,
    /// `plfts`: `plainto_tsquery`
    Plain,
    /// `phfts`: `phraseto_tsquery`
    Phrase,
    /// `wfts`: `websearch_to_tsquery`
    Websearch,
}

impl FtsOperator {
    pub fn name(self) -> &'static str {
        match self {
            FtsOperator::Fts => "fts",
            FtsOperator::Plain => "plfts",
            FtsOperator::Phrase => "phfts",
            FtsOperator::Websearch => "wfts",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "fts" => FtsOperator::Fts,
            "plfts" => FtsOperator::Plain,
            "phfts" => FtsOperator::Phrase,
            "wfts" => FtsOperator::Websearch,
            _ => return None,
        })
    }

    pub fn sql_function(self) -> &'static str {
        match self {
            FtsOperator::Fts => "to_tsquery",
            FtsOperator::Plain => "plainto_tsquery",
            FtsOperator::Phrase => "phraseto_tsquery",
            FtsOperator::Websearch => "websearch_to_tsquery",
        }
    }
}

/// What a filter tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// `op.value` or `op(any).{a,b}`.
    Compare {
        operator: Operator,
        quantifier: Option<Quantifier>,
        value: String,
    },
    /// `in.(a,b,"c,d")`.
    In(Vec<String>),
    /// `is.null` etc.
    Is(IsValue),
    /// `fts(language).query`.
    Fts {
        operator: FtsOperator,
        language: Option<String>,
        value: String,
    },
}

/// A filter on one field: `[not.]operation`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Filter {
    pub field: Field,
    pub negated: bool,
    pub operation: Operation,
}

/// `and`/`or` trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LogicTree {
    Node {
        negated: bool,
        operator: LogicOperator,
        children: Vec<LogicTree>,
    },
    Leaf(Filter),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogicOperator {
    And,
    Or,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    Asc,
    Desc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Nulls {
    First,
    Last,
}

/// What an `order` term sorts by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderTarget {
    /// A column or JSON path of the resource itself.
    Field(Field),
    /// A column of an embedded to-one resource: `relation(column)`.
    Related { relation: String, field: Field },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderTerm {
    pub target: OrderTarget,
    pub direction: Option<Direction>,
    pub nulls: Option<Nulls>,
}

/// Path from the root resource to an embedded one, by output name (`clients.projects`).
pub type EmbedPath = Vec<String>;
