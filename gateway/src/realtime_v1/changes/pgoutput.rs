//! The messages of PostgreSQL's `pgoutput` logical decoding plugin (protocol version 1), as
//! `pg_logical_slot_get_binary_changes` returns them: one message per row. Only what
//! postgres_changes needs is kept: transaction bounds, relations and row changes.

/// A column of a relation as the stream describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelationColumn {
    pub name: String,
    pub type_oid: u32,
    /// Part of the replica identity (the primary key unless REPLICA IDENTITY says otherwise).
    pub key: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Relation {
    pub id: u32,
    pub schema: String,
    pub table: String,
    pub columns: Vec<RelationColumn>,
}

/// One column's value in a tuple.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Datum {
    Null,
    /// A TOASTed value that did not change (not sent).
    Unchanged,
    Text(String),
}

/// The old row of an update or delete: the replica identity's columns only ('K', the others
/// null) or all of them ('O', REPLICA IDENTITY FULL).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OldRow {
    pub full: bool,
    pub datums: Vec<Datum>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Message {
    /// A transaction begins: its commit time in microseconds since 2000-01-01 UTC, and its
    /// transaction id.
    Begin {
        commit_time: i64,
        xid: u32,
    },
    Commit,
    Relation(Relation),
    Insert {
        relation: u32,
        new: Vec<Datum>,
    },
    /// `old` is the replica identity's columns ('K') or the whole old row ('O'); absent when
    /// the key did not change and the identity is not FULL.
    Update {
        relation: u32,
        old: Option<OldRow>,
        new: Vec<Datum>,
    },
    Delete {
        relation: u32,
        old: OldRow,
    },
    /// Anything else (types, origins, truncates, messages): not a row change.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed pgoutput message: {0}")]
pub struct DecodeError(&'static str);

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> Result<&'a [u8], DecodeError> {
        if self.bytes.len() < count {
            return Err(DecodeError("truncated"));
        }
        let (head, rest) = self.bytes.split_at(count);
        self.bytes = rest;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.take(1)?[0])
    }

    fn i16(&mut self) -> Result<i16, DecodeError> {
        Ok(i16::from_be_bytes(
            self.take(2)?.try_into().unwrap_or_default(),
        ))
    }

    fn u32(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(
            self.take(4)?.try_into().unwrap_or_default(),
        ))
    }

    fn i64(&mut self) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(
            self.take(8)?.try_into().unwrap_or_default(),
        ))
    }

    /// A NUL-terminated string.
    fn string(&mut self) -> Result<String, DecodeError> {
        let end = self
            .bytes
            .iter()
            .position(|byte| *byte == 0)
            .ok_or(DecodeError("unterminated string"))?;
        let text = String::from_utf8_lossy(&self.bytes[..end]).into_owned();
        self.bytes = &self.bytes[end + 1..];
        Ok(text)
    }

    fn tuple(&mut self) -> Result<Vec<Datum>, DecodeError> {
        let count = usize::try_from(self.i16()?).map_err(|_| DecodeError("column count"))?;
        (0..count)
            .map(|_| match self.u8()? {
                b'n' => Ok(Datum::Null),
                b'u' => Ok(Datum::Unchanged),
                b't' => {
                    let length = self.u32()? as usize;
                    Ok(Datum::Text(
                        String::from_utf8_lossy(self.take(length)?).into_owned(),
                    ))
                }
                _ => Err(DecodeError("tuple column kind")),
            })
            .collect()
    }
}

pub fn decode(bytes: &[u8]) -> Result<Message, DecodeError> {
    let mut reader = Reader { bytes };
    Ok(match reader.u8()? {
        b'B' => {
            reader.i64()?; // final LSN
            Message::Begin {
                commit_time: reader.i64()?,
                xid: reader.u32()?,
            }
        }
        b'C' => Message::Commit,
        b'R' => {
            let id = reader.u32()?;
            let schema = match reader.string()? {
                // The stream leaves pg_catalog's name out.
                empty if empty.is_empty() => "pg_catalog".to_owned(),
                schema => schema,
            };
            let table = reader.string()?;
            reader.u8()?; // replica identity setting
            let count = usize::try_from(reader.i16()?).map_err(|_| DecodeError("columns"))?;
            let columns = (0..count)
                .map(|_| {
                    let flags = reader.u8()?;
                    let name = reader.string()?;
                    let type_oid = reader.u32()?;
                    reader.u32()?; // typmod
                    Ok(RelationColumn {
                        name,
                        type_oid,
                        key: flags & 1 == 1,
                    })
                })
                .collect::<Result<_, DecodeError>>()?;
            Message::Relation(Relation {
                id,
                schema,
                table,
                columns,
            })
        }
        b'I' => {
            let relation = reader.u32()?;
            if reader.u8()? != b'N' {
                return Err(DecodeError("insert without a new tuple"));
            }
            Message::Insert {
                relation,
                new: reader.tuple()?,
            }
        }
        b'U' => {
            let relation = reader.u32()?;
            let mut old = None;
            let mut kind = reader.u8()?;
            if kind == b'K' || kind == b'O' {
                old = Some(OldRow {
                    full: kind == b'O',
                    datums: reader.tuple()?,
                });
                kind = reader.u8()?;
            }
            if kind != b'N' {
                return Err(DecodeError("update without a new tuple"));
            }
            Message::Update {
                relation,
                old,
                new: reader.tuple()?,
            }
        }
        b'D' => {
            let relation = reader.u32()?;
            match reader.u8()? {
                kind @ (b'K' | b'O') => Message::Delete {
                    relation,
                    old: OldRow {
                        full: kind == b'O',
                        datums: reader.tuple()?,
                    },
                },
                _ => return Err(DecodeError("delete without an old tuple")),
            }
        }
        _ => Message::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(text: &str) -> Vec<u8> {
        (0..text.len())
            .step_by(2)
            .map(|at| u8::from_str_radix(&text[at..at + 2], 16).unwrap())
            .collect()
    }

    /// Messages captured from PostgreSQL 15 for `t(id int primary key, body text, tags text[],
    /// at timestamptz, n numeric)`: insert, update, delete.
    #[test]
    fn decodes_what_postgres_sends() {
        let relation = decode(&hex("520000400a7075626c69630074006400050169640000000017ffffffff00626f64790000000019ffffffff007461677300000003f1ffffffff00617400000004a0ffffffff006e00000006a4ffffffff")).unwrap();
        let Message::Relation(relation) = relation else {
            panic!("a relation")
        };
        assert_eq!(
            (relation.schema.as_str(), relation.table.as_str()),
            ("public", "t")
        );
        assert_eq!(relation.columns.len(), 5);
        assert!(relation.columns[0].key && !relation.columns[1].key);
        assert_eq!(relation.columns[2].type_oid, 1009);
        let insert = decode(&hex("490000400a4e00057400000001317400000004686f6c6174000000097b612c22622063227d740000001d323032362d31312d32382031333a31343a30322e3535393539342b30307400000004312e3530")).unwrap();
        assert_eq!(
            insert,
            Message::Insert {
                relation: 0x400a,
                new: vec![
                    Datum::Text("1".into()),
                    Datum::Text("hola".into()),
                    Datum::Text("{a,\"b c\"}".into()),
                    Datum::Text("2026-11-28 13:14:02.559594+00".into()),
                    Datum::Text("1.50".into()),
                ]
            }
        );
        let Message::Update { old, .. } = decode(&hex("550000400a4e000574000000013174000000017874000000097b612c22622063227d740000001d323032362d31312d32382031333a31343a30322e3535393539342b30307400000004312e3530")).unwrap() else {
            panic!("an update")
        };
        assert_eq!(old, None);
        let Message::Delete { old, .. } =
            decode(&hex("440000400a4b00057400000001316e6e6e6e")).unwrap()
        else {
            panic!("a delete")
        };
        assert!(!old.full);
        assert_eq!(old.datums[0], Datum::Text("1".into()));
        assert_eq!(old.datums[1], Datum::Null);
        assert!(matches!(
            decode(&hex("42000000000153118800030454b8194830000002d7")).unwrap(),
            Message::Begin { commit_time, xid: 0x2d7 } if commit_time == 0x0003_0454_b819_4830
        ));
        assert!(decode(&hex("490000")).is_err());
    }
}
