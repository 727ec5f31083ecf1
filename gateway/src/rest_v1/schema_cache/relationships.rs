//! Relationships between relations, derived from foreign keys the way PostgREST does:
//!
//! 1. each foreign key `T → F` is many-to-one, or one-to-one when its columns are exactly a
//!    primary key or unique constraint of `T`;
//! 2. views that expose all columns of a key (followed through any depth of views) take
//!    part as if they were the table: `V → F`, `T → W`, `V → W`, and a view exposing a
//!    primary key gets that primary key;
//! 3. a relation `J` with many-to-one relationships to `A` and `B` whose `J`-side columns
//!    are all part of `J`'s primary key is a junction: `A ↔ B` many-to-many;
//! 4. every many-to-one has its one-to-many inverse, every one-to-one its mirror;
//! 5. computed relationships (functions) replace foreign-key relationships between the same
//!    two relations when the function is named like the target;
//! 6. only relationships whose ends (and junction) are in exposed schemas are kept.

use std::collections::{HashMap, HashSet};

use super::node_tree::ViewColumn;
use super::{Cardinality, Junction, QualifiedName, Relation, Relationship};

/// A foreign-key constraint; columns are `(attnum, name)` in key order.
#[derive(Debug, Clone)]
pub struct ForeignKey {
    pub name: String,
    pub table_oid: u32,
    pub table: QualifiedName,
    pub foreign_oid: u32,
    pub foreign_table: QualifiedName,
    pub columns: Vec<(i16, String)>,
    pub foreign_columns: Vec<(i16, String)>,
    pub one_to_one: bool,
}

/// A primary-key constraint.
#[derive(Debug, Clone)]
pub struct KeyConstraint {
    pub name: String,
    pub table_oid: u32,
    pub columns: Vec<(i16, String)>,
}

/// A view (in an exposed or extra-search-path schema) and its columns.
#[derive(Debug, Clone)]
pub struct ViewInfo {
    pub oid: u32,
    pub name: QualifiedName,
    pub columns: Vec<ViewColumn>,
}

/// Per exposed view: which base columns it exposes, under which names (in view order).
type Exposure = HashMap<(u32, i16), Vec<String>>;

/// Computes every relationship and fills in view primary keys. `relations` holds the
/// relations of the exposed schemas by oid.
pub fn derive(
    relations: &mut HashMap<u32, Relation>,
    foreign_keys: &[ForeignKey],
    primary_keys: &[KeyConstraint],
    views: &[ViewInfo],
    computed: Vec<Relationship>,
    exposed_schemas: &[String],
) -> HashMap<QualifiedName, Vec<Relationship>> {
    let exposures = view_exposures(relations, views);

    // View primary keys, from the primary keys of the tables they expose.
    for (view_oid, exposure) in &exposures {
        let mut key: Vec<String> = Vec::new();
        for constraint in primary_keys {
            if let Some(mapping) = exposed_key(exposure, constraint.table_oid, &constraint.columns)
            {
                for (_, names) in mapping {
                    if let Some(first) = names.first()
                        && !key.contains(first)
                    {
                        key.push(first.clone());
                    }
                }
            }
        }
        if let Some(view) = relations.get_mut(view_oid)
            && !key.is_empty()
        {
            key.sort();
            view.primary_key = key;
        }
    }

    let mut derived: Vec<Relationship> = Vec::new();
    for fk in foreign_keys {
        let pairs: Vec<(String, String)> = fk
            .columns
            .iter()
            .zip(&fk.foreign_columns)
            .map(|((_, column), (_, foreign))| (column.clone(), foreign.clone()))
            .collect();
        derived.push(to_one(
            fk,
            &fk.table,
            &fk.foreign_table,
            pairs,
            false,
            false,
        ));

        // Views exposing the referencing columns (V → F) and the referenced ones (T → W).
        let referencing: Vec<(&QualifiedName, Vec<Vec<String>>)> = exposures
            .iter()
            .filter_map(|(oid, exposure)| {
                let mapping = exposed_key(exposure, fk.table_oid, &fk.columns)?;
                Some((view_name(relations, *oid)?, combinations(&mapping)))
            })
            .collect();
        let referenced: Vec<(&QualifiedName, Vec<Vec<String>>)> = exposures
            .iter()
            .filter_map(|(oid, exposure)| {
                let mapping = exposed_key(exposure, fk.foreign_oid, &fk.foreign_columns)?;
                Some((view_name(relations, *oid)?, combinations(&mapping)))
            })
            .collect();
        let foreign_names: Vec<String> =
            fk.foreign_columns.iter().map(|(_, n)| n.clone()).collect();
        let local_names: Vec<String> = fk.columns.iter().map(|(_, n)| n.clone()).collect();
        for (view, combos) in &referencing {
            for combo in combos {
                let pairs = combo
                    .iter()
                    .cloned()
                    .zip(foreign_names.iter().cloned())
                    .collect();
                derived.push(to_one(fk, view, &fk.foreign_table, pairs, true, false));
            }
        }
        for (view, combos) in &referenced {
            for combo in combos {
                let pairs = local_names
                    .iter()
                    .cloned()
                    .zip(combo.iter().cloned())
                    .collect();
                derived.push(to_one(fk, &fk.table, view, pairs, false, true));
            }
        }
        for (left, left_combos) in &referencing {
            for (right, right_combos) in &referenced {
                for left_combo in left_combos {
                    for right_combo in right_combos {
                        let pairs = left_combo
                            .iter()
                            .cloned()
                            .zip(right_combo.iter().cloned())
                            .collect();
                        derived.push(to_one(fk, left, right, pairs, true, true));
                    }
                }
            }
        }
    }

    let junctions = many_to_many(relations, &derived);
    let inverses: Vec<Relationship> = derived.iter().filter_map(inverse).collect();
    derived.extend(junctions);
    derived.extend(inverses);

    // Computed relationships named like their target replace the foreign-key ones.
    let overridden: HashSet<(QualifiedName, QualifiedName)> = computed
        .iter()
        .filter_map(|relationship| match relationship {
            Relationship::Computed {
                function, table, ..
            } => Some((table.clone(), function.clone())),
            Relationship::ForeignKey { .. } => None,
        })
        .collect();
    derived.retain(|relationship| {
        !overridden.contains(&(
            relationship.table().clone(),
            relationship.foreign_table().clone(),
        ))
    });
    derived.extend(computed);

    let exposed = |name: &QualifiedName| exposed_schemas.contains(&name.schema);
    let mut by_table: HashMap<QualifiedName, Vec<Relationship>> = HashMap::new();
    for relationship in derived {
        let visible = exposed(relationship.table())
            && exposed(relationship.foreign_table())
            && match &relationship {
                Relationship::ForeignKey {
                    cardinality: Cardinality::ManyToMany(junction),
                    ..
                } => exposed(&junction.table),
                _ => true,
            };
        if visible {
            by_table
                .entry(relationship.table().clone())
                .or_default()
                .push(relationship);
        }
    }
    // As in PostgREST, a table joined to another through a junction in an unexposed schema
    // keeps an entry (maybe empty), so PGRST200's hint does not suggest another table.
    for table in hidden_junction_ends(relations, foreign_keys, primary_keys) {
        if exposed(&table) {
            by_table.entry(table).or_default();
        }
    }
    for list in by_table.values_mut() {
        list.sort();
        list.dedup();
    }
    by_table
}

/// The ends of many-to-many links whose junction is not one of `relations` (it is in an
/// unexposed schema): a table whose primary key holds the columns of two foreign keys.
fn hidden_junction_ends(
    relations: &HashMap<u32, Relation>,
    foreign_keys: &[ForeignKey],
    primary_keys: &[KeyConstraint],
) -> Vec<QualifiedName> {
    let mut ends = Vec::new();
    for key in primary_keys {
        if relations.contains_key(&key.table_oid) {
            continue;
        }
        let covered: Vec<&ForeignKey> = foreign_keys
            .iter()
            .filter(|fk| fk.table_oid == key.table_oid)
            .filter(|fk| fk.columns.iter().all(|column| key.columns.contains(column)))
            .collect();
        if covered.len() >= 2 {
            ends.extend(covered.iter().map(|fk| fk.foreign_table.clone()));
        }
    }
    ends
}

fn view_name(relations: &HashMap<u32, Relation>, oid: u32) -> Option<&QualifiedName> {
    relations.get(&oid).map(|relation| &relation.name)
}

fn to_one(
    fk: &ForeignKey,
    table: &QualifiedName,
    foreign_table: &QualifiedName,
    columns: Vec<(String, String)>,
    table_is_view: bool,
    foreign_table_is_view: bool,
) -> Relationship {
    let cardinality = if fk.one_to_one {
        Cardinality::OneToOne {
            constraint: fk.name.clone(),
            columns,
            is_parent: false,
        }
    } else {
        Cardinality::ManyToOne {
            constraint: fk.name.clone(),
            columns,
        }
    };
    Relationship::ForeignKey {
        is_self: table == foreign_table,
        table: table.clone(),
        foreign_table: foreign_table.clone(),
        cardinality,
        table_is_view,
        foreign_table_is_view,
    }
}

/// For each exposed view, the base columns it exposes at every depth of view nesting.
fn view_exposures(
    relations: &HashMap<u32, Relation>,
    views: &[ViewInfo],
) -> HashMap<u32, Exposure> {
    let by_oid: HashMap<u32, &ViewInfo> = views.iter().map(|view| (view.oid, view)).collect();
    let mut exposures = HashMap::new();
    for view in views {
        // Only views of exposed schemas (those in `relations`) take part directly.
        if !relations
            .get(&view.oid)
            .is_some_and(|relation| relation.is_view)
        {
            continue;
        }
        let mut exposure: Exposure = HashMap::new();
        for column in &view.columns {
            let mut origin = column.origin;
            let mut visited = vec![view.oid];
            while let Some((table, attnum)) = origin {
                let names = exposure.entry((table, attnum)).or_default();
                if !names.contains(&column.name) {
                    names.push(column.name.clone());
                }
                // Follow into an underlying view, guarding against cycles.
                origin = match by_oid.get(&table) {
                    Some(inner) if !visited.contains(&table) => {
                        visited.push(table);
                        inner
                            .columns
                            .iter()
                            .find(|c| c.number == attnum)
                            .and_then(|c| c.origin)
                    }
                    _ => None,
                };
            }
        }
        exposures.insert(view.oid, exposure);
    }
    exposures
}

/// The view column names for each key column, when the view exposes all of them.
fn exposed_key(
    exposure: &Exposure,
    table_oid: u32,
    columns: &[(i16, String)],
) -> Option<Vec<(String, Vec<String>)>> {
    columns
        .iter()
        .map(|(attnum, name)| {
            exposure
                .get(&(table_oid, *attnum))
                .map(|names| (name.clone(), names.clone()))
        })
        .collect()
}

/// Every way of picking one view column per key column.
fn combinations(mapping: &[(String, Vec<String>)]) -> Vec<Vec<String>> {
    let mut result: Vec<Vec<String>> = vec![Vec::new()];
    for (_, alternatives) in mapping {
        result = result
            .into_iter()
            .flat_map(|prefix| {
                alternatives.iter().map(move |alternative| {
                    let mut next = prefix.clone();
                    next.push(alternative.clone());
                    next
                })
            })
            .collect();
    }
    result
}

fn many_to_many(relations: &HashMap<u32, Relation>, to_one: &[Relationship]) -> Vec<Relationship> {
    let keys: HashMap<&QualifiedName, &Vec<String>> = relations
        .values()
        .map(|relation| (&relation.name, &relation.primary_key))
        .collect();
    // Junction → its many-to-one links: (target, constraint, (junction column, target column) pairs).
    type Link<'a> = (&'a QualifiedName, &'a String, &'a Vec<(String, String)>);
    let mut by_junction: HashMap<&QualifiedName, Vec<Link<'_>>> = HashMap::new();
    for relationship in to_one {
        if let Relationship::ForeignKey {
            table,
            foreign_table,
            cardinality:
                Cardinality::ManyToOne {
                    constraint,
                    columns,
                },
            ..
        } = relationship
        {
            by_junction
                .entry(table)
                .or_default()
                .push((foreign_table, constraint, columns));
        }
    }
    let mut result = Vec::new();
    for (junction, links) in by_junction {
        let Some(primary_key) = keys.get(junction) else {
            continue;
        };
        for (source, source_constraint, source_columns) in &links {
            for (target, target_constraint, target_columns) in &links {
                if source_constraint == target_constraint {
                    continue;
                }
                let covered = source_columns
                    .iter()
                    .chain(target_columns.iter())
                    .all(|(junction_column, _)| primary_key.contains(junction_column));
                if !covered {
                    continue;
                }
                result.push(Relationship::ForeignKey {
                    table: (*source).clone(),
                    foreign_table: (*target).clone(),
                    is_self: source == target,
                    cardinality: Cardinality::ManyToMany(Junction {
                        table: junction.clone(),
                        constraint_source: (*source_constraint).clone(),
                        constraint_target: (*target_constraint).clone(),
                        columns_source: source_columns
                            .iter()
                            .map(|(j, s)| (s.clone(), j.clone()))
                            .collect(),
                        columns_target: target_columns
                            .iter()
                            .map(|(j, t)| (t.clone(), j.clone()))
                            .collect(),
                    }),
                    table_is_view: false,
                    foreign_table_is_view: false,
                });
            }
        }
    }
    result
}

fn inverse(relationship: &Relationship) -> Option<Relationship> {
    let Relationship::ForeignKey {
        table,
        foreign_table,
        is_self,
        cardinality,
        table_is_view,
        foreign_table_is_view,
    } = relationship
    else {
        return None;
    };
    let swap = |columns: &[(String, String)]| -> Vec<(String, String)> {
        columns
            .iter()
            .map(|(a, b)| (b.clone(), a.clone()))
            .collect()
    };
    let cardinality = match cardinality {
        Cardinality::ManyToOne {
            constraint,
            columns,
        } => Cardinality::OneToMany {
            constraint: constraint.clone(),
            columns: swap(columns),
        },
        Cardinality::OneToOne {
            constraint,
            columns,
            is_parent,
        } => Cardinality::OneToOne {
            constraint: constraint.clone(),
            columns: swap(columns),
            is_parent: !is_parent,
        },
        Cardinality::OneToMany { .. } | Cardinality::ManyToMany(_) => return None,
    };
    Some(Relationship::ForeignKey {
        table: foreign_table.clone(),
        foreign_table: table.clone(),
        is_self: *is_self,
        cardinality,
        table_is_view: *foreign_table_is_view,
        foreign_table_is_view: *table_is_view,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relation(schema: &str, name: &str, is_view: bool, primary_key: &[&str]) -> Relation {
        Relation {
            name: QualifiedName::new(schema, name),
            description: None,
            is_view,
            insertable: true,
            updatable: true,
            deletable: true,
            primary_key: primary_key.iter().map(|s| (*s).to_owned()).collect(),
            plain_inserts: false,
            columns: Vec::new(),
        }
    }

    fn fk(
        name: &str,
        table: (u32, &str),
        columns: &[(i16, &str)],
        foreign: (u32, &str),
        foreign_columns: &[(i16, &str)],
    ) -> ForeignKey {
        ForeignKey {
            name: name.into(),
            table_oid: table.0,
            table: QualifiedName::new("public", table.1),
            foreign_oid: foreign.0,
            foreign_table: QualifiedName::new("public", foreign.1),
            columns: columns.iter().map(|(n, s)| (*n, (*s).to_owned())).collect(),
            foreign_columns: foreign_columns
                .iter()
                .map(|(n, s)| (*n, (*s).to_owned()))
                .collect(),
            one_to_one: false,
        }
    }

    fn schema() -> Vec<String> {
        vec!["public".into()]
    }

    #[test]
    fn foreign_keys_give_both_directions() {
        let mut relations = HashMap::from([
            (1, relation("public", "clients", false, &["id"])),
            (2, relation("public", "projects", false, &["id"])),
        ]);
        let fks = [fk(
            "projects_client_id_fkey",
            (2, "projects"),
            &[(2, "client_id")],
            (1, "clients"),
            &[(1, "id")],
        )];
        let rels = derive(&mut relations, &fks, &[], &[], Vec::new(), &schema());
        let projects = &rels[&QualifiedName::new("public", "projects")];
        assert_eq!(projects.len(), 1);
        assert!(projects[0].is_to_one());
        let clients = &rels[&QualifiedName::new("public", "clients")];
        assert!(matches!(
            &clients[0],
            Relationship::ForeignKey { cardinality: Cardinality::OneToMany { columns, .. }, .. }
                if columns == &[("id".to_owned(), "client_id".to_owned())]
        ));
    }

    #[test]
    fn ends_of_a_junction_in_an_unexposed_schema_keep_an_empty_entry() {
        let mut relations = HashMap::from([
            (1, relation("public", "students", false, &["id"])),
            (2, relation("public", "courses", false, &["id"])),
            (4, relation("public", "rooms", false, &["id"])),
        ]);
        // Oid 3 is a junction outside `relations` (an unexposed schema).
        let private = |mut fk: ForeignKey| {
            fk.table = QualifiedName::new("private", "enrollments");
            fk
        };
        let fks = [
            private(fk(
                "e_student",
                (3, "enrollments"),
                &[(1, "student_id")],
                (1, "students"),
                &[(1, "id")],
            )),
            private(fk(
                "e_course",
                (3, "enrollments"),
                &[(2, "course_id")],
                (2, "courses"),
                &[(1, "id")],
            )),
        ];
        let key = |oid, columns: &[(i16, &str)]| KeyConstraint {
            name: "pk".into(),
            table_oid: oid,
            columns: columns.iter().map(|(n, s)| (*n, (*s).to_owned())).collect(),
        };
        let keys = [key(3, &[(1, "student_id"), (2, "course_id")])];
        let rels = derive(&mut relations, &fks, &keys, &[], Vec::new(), &schema());
        assert_eq!(
            rels.get(&QualifiedName::new("public", "students")),
            Some(&Vec::new())
        );
        assert_eq!(
            rels.get(&QualifiedName::new("public", "courses")),
            Some(&Vec::new())
        );
        assert_eq!(rels.get(&QualifiedName::new("public", "rooms")), None);
        // A key that does not hold both foreign keys' columns makes no junction.
        let keys = [key(3, &[(1, "student_id")])];
        let rels = derive(&mut relations, &fks, &keys, &[], Vec::new(), &schema());
        assert_eq!(rels.get(&QualifiedName::new("public", "students")), None);
    }

    #[test]
    fn a_junction_with_keys_in_its_primary_key_links_many_to_many() {
        let mut relations = HashMap::from([
            (1, relation("public", "students", false, &["id"])),
            (2, relation("public", "courses", false, &["id"])),
            (
                3,
                relation("public", "enrollments", false, &["course_id", "student_id"]),
            ),
        ]);
        let fks = [
            fk(
                "enrollments_student_fkey",
                (3, "enrollments"),
                &[(1, "student_id")],
                (1, "students"),
                &[(1, "id")],
            ),
            fk(
                "enrollments_course_fkey",
                (3, "enrollments"),
                &[(2, "course_id")],
                (2, "courses"),
                &[(1, "id")],
            ),
        ];
        let rels = derive(&mut relations, &fks, &[], &[], Vec::new(), &schema());
        let students = &rels[&QualifiedName::new("public", "students")];
        let m2m: Vec<_> = students
            .iter()
            .filter_map(|r| match r {
                Relationship::ForeignKey {
                    cardinality: Cardinality::ManyToMany(j),
                    foreign_table,
                    ..
                } => Some((foreign_table, j)),
                _ => None,
            })
            .collect();
        assert_eq!(m2m.len(), 1);
        assert_eq!(m2m[0].0.name, "courses");
        assert_eq!(
            m2m[0].1.columns_source,
            [("id".to_owned(), "student_id".to_owned())]
        );
        assert_eq!(
            m2m[0].1.columns_target,
            [("id".to_owned(), "course_id".to_owned())]
        );
    }

    #[test]
    fn views_take_part_through_their_base_columns() {
        let mut relations = HashMap::from([
            (1, relation("public", "clients", false, &["id"])),
            (2, relation("private_projects", "projects", false, &["id"])),
            (10, relation("public", "projects_view", true, &[])),
        ]);
        let mut base = fk(
            "client",
            (2, "projects"),
            &[(3, "client_id")],
            (1, "clients"),
            &[(1, "id")],
        );
        base.table = QualifiedName::new("private_projects", "projects");
        let fks = [base];
        let pks = [KeyConstraint {
            name: "projects_pkey".into(),
            table_oid: 2,
            columns: vec![(1, "id".into())],
        }];
        let views = [ViewInfo {
            oid: 10,
            name: QualifiedName::new("public", "projects_view"),
            columns: vec![
                ViewColumn {
                    number: 1,
                    name: "id".into(),
                    origin: Some((2, 1)),
                },
                ViewColumn {
                    number: 2,
                    name: "owner".into(),
                    origin: Some((2, 3)),
                },
            ],
        }];
        let rels = derive(&mut relations, &fks, &pks, &views, Vec::new(), &schema());
        assert_eq!(relations[&10].primary_key, ["id"]);
        let view_rels = &rels[&QualifiedName::new("public", "projects_view")];
        assert!(matches!(
            &view_rels[0],
            Relationship::ForeignKey { cardinality: Cardinality::ManyToOne { columns, .. }, table_is_view: true, .. }
                if columns == &[("owner".to_owned(), "id".to_owned())]
        ));
        // The base table is in an unexposed schema: its own relationship is not visible.
        assert!(!rels.contains_key(&QualifiedName::new("private_projects", "projects")));
        assert_eq!(rels[&QualifiedName::new("public", "clients")].len(), 1);
    }
}
