//! Finding the relationship an embed refers to (PostgREST's `findRel`).
//!
//! Both ends must be in the request schema. An embed name matches a relationship by the
//! target's name, by the foreign-key constraint name, or by a single foreign-key column;
//! a `!hint` then narrows by constraint, column or junction. No match is PGRST200, several
//! are PGRST201 (listing the candidates).

use super::fuzzy::FuzzySet;
use crate::rest_v1::error::ApiError;
use crate::rest_v1::schema_cache::{Cardinality, QualifiedName, Relationship, SchemaCache};

/// The single column of a key, if it has exactly one.
fn single(columns: &[(String, String)], first: bool) -> Option<&str> {
    match columns {
        [(a, b)] => Some(if first { a } else { b }),
        _ => None,
    }
}

fn matches(relationship: &Relationship, target: &str, hint: Option<&str>) -> bool {
    match relationship {
        Relationship::Computed { function, .. } => function.name == target,
        Relationship::ForeignKey {
            foreign_table,
            is_self,
            cardinality,
            foreign_table_is_view,
            ..
        } => {
            let constraint = match cardinality {
                Cardinality::OneToMany { constraint, .. }
                | Cardinality::ManyToOne { constraint, .. }
                | Cardinality::OneToOne { constraint, .. } => Some(constraint.as_str()),
                Cardinality::ManyToMany(_) => None,
            };
            // The origin-side and foreign-side single columns of the key.
            let (origin_column, foreign_column) = match cardinality {
                Cardinality::OneToMany { columns, .. }
                | Cardinality::ManyToOne { columns, .. }
                | Cardinality::OneToOne { columns, .. } => {
                    (single(columns, true), single(columns, false))
                }
                Cardinality::ManyToMany(_) => (None, None),
            };
            let names_target = foreign_table.name == target;
            if *is_self {
                return match hint {
                    None => {
                        (names_target && matches!(cardinality, Cardinality::OneToMany { .. }))
                            || (matches!(cardinality, Cardinality::ManyToOne { .. })
                                && origin_column == Some(target))
                    }
                    Some(hint) => {
                        names_target
                            && matches!(cardinality, Cardinality::OneToMany { .. })
                            && foreign_column == Some(hint)
                    }
                };
            }
            match hint {
                None => {
                    names_target
                        || (!foreign_table_is_view && constraint == Some(target))
                        || (!foreign_table_is_view && origin_column == Some(target))
                }
                Some(hint) => {
                    names_target
                        && (constraint == Some(hint)
                            || origin_column == Some(hint)
                            || foreign_column == Some(hint)
                            || matches!(cardinality, Cardinality::ManyToMany(junction) if junction.table.name == hint))
                }
            }
        }
    }
}

/// Resolves the relationship from `origin` to the embed `target` in `schema`.
pub fn find(
    cache: &SchemaCache,
    schema: &str,
    origin: &QualifiedName,
    target: &str,
    hint: Option<&str>,
) -> Result<Relationship, ApiError> {
    let candidates: Vec<&Relationship> = cache
        .relationships_of(origin)
        .iter()
        .filter(|relationship| relationship.foreign_table().schema == schema)
        .filter(|relationship| matches(relationship, target, hint))
        .collect();
    match candidates.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(ApiError::NoRelationship {
            schema: schema.to_owned(),
            origin: origin.name.clone(),
            target: target.to_owned(),
            hint: hint.map(str::to_owned),
            suggestion: suggestion(cache, schema, origin, target),
        }),
        many => Err(ApiError::AmbiguousRelationship {
            origin: origin.name.clone(),
            target: target.to_owned(),
            candidates: many.iter().map(|r| (*r).clone()).collect(),
        }),
    }
}

/// PGRST200's hint: when the origin has no relationships at all, a similarly named relation
/// that has some; otherwise a similarly named target of the origin's relationships (none
/// when its only ones go through a junction in an unexposed schema, as in PostgREST).
fn suggestion(
    cache: &SchemaCache,
    schema: &str,
    origin: &QualifiedName,
    target: &str,
) -> Option<String> {
    let all = cache.relationships.get(origin);
    let own: Vec<&Relationship> = all
        .into_iter()
        .flatten()
        .filter(|relationship| relationship.foreign_table().schema == schema)
        .collect();
    let only_hidden = all.is_some_and(Vec::is_empty);
    if own.is_empty() && !only_hidden {
        let names: Vec<&str> = cache
            .relationships
            .iter()
            .filter(|(table, list)| table.schema == schema && !list.is_empty())
            .map(|(table, _)| table.name.as_str())
            .collect();
        let best = FuzzySet::new(names.iter().copied()).best_match(&origin.name, 0.33)?;
        return Some(format!(
            "Perhaps you meant '{best}' instead of '{}'.",
            origin.name
        ));
    }
    let names: Vec<&str> = own
        .iter()
        .map(|r| r.foreign_table().name.as_str())
        .collect();
    let best = FuzzySet::new(names.iter().copied())
        .matches(target, 0.33)
        .into_iter()
        .find(|(score, _)| *score < 1.0)
        .map(|(_, name)| name)?;
    Some(format!("Perhaps you meant '{best}' instead of '{target}'."))
}
