//! `cielo gen types typescript` over the migrated schema is exactly the frontend's checked-in
//! `database.types.ts`, so the app's types cannot drift from sql/migrations.

use std::path::Path;

use crate::helpers::spawn_app;

const REGENERATE: &str = "make types";

#[tokio::test]
async fn frontend_database_types_are_those_of_the_migrations() {
    let app = spawn_app().await;
    let generated = gateway::typegen::typescript(&app.database_url, &["public".to_owned()])
        .await
        .expect("generate the types");

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../frontend/src/lib/database.types.ts");
    let checked_in = std::fs::read_to_string(&path)
        .unwrap_or_else(|error| panic!("read {}: {error}", path.display()));
    if generated != checked_in {
        let line = generated
            .lines()
            .zip(checked_in.lines())
            .position(|(new, old)| new != old)
            .unwrap_or_else(|| generated.lines().count().min(checked_in.lines().count()));
        panic!(
            "frontend/src/lib/database.types.ts differs from the migrated schema's types \
             (first at line {}); regenerate it with `{REGENERATE}` (cielo gen types typescript \
             over a freshly migrated database)",
            line + 1
        );
    }
}
