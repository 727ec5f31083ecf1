// supabase-js against rest/v1 reads: every read feature of PostgREST 14 the client can reach
// (select, embedding, filters, ordering/paging, media types, counts, errors, views, OpenAPI).
//
// The expectations are what real PostgREST 14 answers for the school fixture
// (gateway/tests/fixtures/school.sql) plus the few objects created in `before` — never what
// the gateway happens to answer. Data: schools 1-2; teachers 1 Ana (user ana), 2 Beto (user
// beto, mentor 1), 3 Carla (mentor 1); courses 1 Matemática and 2 Lenguaje (Ana), 3 Historia
// (Beto); students 1 Diego, 2 Elena, 3 Fabián, 4 `Gabriela, "Gaby"`; enrollments (1,1) (1,2)
// (2,1) (3,3); one substitution of course 3 (absent 2, substitute 1).

import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import { createClient } from '@supabase/supabase-js'
import { FIXTURE_SCHEMA, spawnFixtureGateway } from '../harness.mjs'
import {
  ANA,
  BETO,
  STRANGER,
  anonClient,
  assertError,
  assertOk,
  clientWithAccessToken,
  clientWithHeader,
  signJwt,
  userToken as tokenFor,
  waitForTable as waitFor,
} from '../support.mjs'

// ---------------------------------------------------------------------------------------------
// Helpers

let gateway

const userToken = (sub, email, options) => tokenFor(gateway, sub, email, options)
const anon = () => anonClient(gateway)
const withHeader = (token) => clientWithHeader(gateway, token)
const withAccessToken = (token) => clientWithAccessToken(gateway, token)
const waitForTable = (table) => waitFor(gateway, table)
const asAna = () => withAccessToken(userToken(ANA, 'ana@colegio.cl'))
const asBeto = () => withHeader(userToken(BETO, 'beto@colegio.cl'))

/**
 * Extra objects the fixture does not have: a boolean column, a security-invoker view and a
 * table larger than db-max-rows. Autovacuum is off on the new tables so the planner estimates
 * used by count=planned/estimated stay put while the tests run (they are never analyzed).
 */
const EXTRA_SQL = `
  CREATE TABLE fixture.rooms (
    id int PRIMARY KEY,
    code text NOT NULL,
    accessible boolean,
    capacity int,
    notes text
  ) WITH (autovacuum_enabled = false);
  INSERT INTO fixture.rooms VALUES
    (1, 'A1', true, 30, 'planta baja, ala norte'),
    (2, 'B2', false, 25, NULL),
    (3, 'C3', NULL, NULL, '50% reservado');
  CREATE VIEW fixture.my_courses WITH (security_invoker = true) AS
    SELECT id, name, teacher_id FROM fixture.courses;
  CREATE TABLE fixture.numbers (n int PRIMARY KEY) WITH (autovacuum_enabled = false);
  INSERT INTO fixture.numbers SELECT generate_series(1, 1500);
  GRANT SELECT ON fixture.rooms, fixture.my_courses, fixture.numbers TO anon, authenticated;
`

before(async () => {
  gateway = await spawnFixtureGateway()
  await gateway.admin((client) => client.query(EXTRA_SQL))
  await waitForTable('rooms')
  await waitForTable('my_courses')
  await waitForTable('numbers')
})

/** The planner's row estimate for `sql`, as PostgREST reads it (EXPLAIN … "Plan Rows"). */
async function plannerEstimate(sql) {
  const plan = await gateway.admin((client) => client.query(`EXPLAIN (FORMAT JSON) ${sql}`))
  return plan.rows[0]['QUERY PLAN'][0].Plan['Plan Rows']
}

after(async () => {
  await gateway?.stop()
})

// ---------------------------------------------------------------------------------------------

describe('select', () => {
  test('* returns every column, top-level objects in column order', async () => {
    const result = await anon().from('schools').select('*').order('id')
    assertOk(result, [
      { id: 1, name: 'Liceo Bicentenario', region: 'Metropolitana', founded: '1990-03-01' },
      { id: 2, name: 'Escuela Rural Las Lomas', region: 'Ñuble', founded: null },
    ], { statusText: 'OK' })
    assert.deepEqual(Object.keys(result.data[0]), ['id', 'name', 'region', 'founded'])
  })

  test('select() without arguments is *, with arrays, jsonb, ranges, enums and tsvector', async () => {
    const result = await anon().from('courses').select().order('id')
    assertOk(result, [
      {
        id: 1, teacher_id: 1, name: 'Matemática', level: '1° básico', tags: ['numeros', 'calculo'],
        settings: { room: 'A1', weekly: { hours: 6 } }, hours: '[8,10)', summary: "'matemat':1",
      },
      {
        id: 2, teacher_id: 1, name: 'Lenguaje', level: '2° básico', tags: ['lectura'],
        settings: { room: 'B2' }, hours: '[10,12)', summary: "'lenguaj':1",
      },
      {
        id: 3, teacher_id: 2, name: 'Historia', level: '1° medio', tags: [],
        settings: {}, hours: null, summary: "'histori':1",
      },
    ])
  })

  test('chosen columns come back in the requested order', async () => {
    const result = await anon().from('students').select('name, id').order('id').limit(2)
    assertOk(result, [{ name: 'Diego', id: 1 }, { name: 'Elena', id: 2 }])
    assert.deepEqual(Object.keys(result.data[0]), ['name', 'id'])
  })

  test('renames with alias:column', async () => {
    const result = await anon().from('schools').select('nombre:name, fundado:founded').order('id')
    assertOk(result, [
      { nombre: 'Liceo Bicentenario', fundado: '1990-03-01' },
      { nombre: 'Escuela Rural Las Lomas', fundado: null },
    ])
  })

  test('casts with column::type keep the column name as key', async () => {
    const result = await anon().from('courses').select('id::text, hours::text, nivel:level::text').order('id')
    assertOk(result, [
      { id: '1', hours: '[8,10)', nivel: '1° básico' },
      { id: '2', hours: '[10,12)', nivel: '2° básico' },
      { id: '3', hours: null, nivel: '1° medio' },
    ])
  })

  test('JSON paths: -> keeps JSON, ->> gives text, key = last path element or alias', async () => {
    const result = await anon()
      .from('courses')
      .select('id, settings->room, sala:settings->>room, settings->weekly->hours, semana:settings->>weekly')
      .order('id')
    assertOk(result, [
      { id: 1, room: 'A1', sala: 'A1', hours: 6, semana: '{"hours": 6}' },
      { id: 2, room: 'B2', sala: 'B2', hours: null, semana: null },
      { id: 3, room: null, sala: null, hours: null, semana: null },
    ])
  })

  test('JSON path with ->> and no alias names the key after the last key', async () => {
    const result = await anon().from('courses').select('settings->weekly->>hours').order('id')
    assertOk(result, [{ hours: '6' }, { hours: null }, { hours: null }])
  })

  test('JSON path on a non-JSON column goes through to_jsonb; an index keeps the column name', async () => {
    const result = await anon().from('courses').select('id, tags->0').order('id')
    assertOk(result, [
      { id: 1, tags: 'numeros' },
      { id: 2, tags: 'lectura' },
      { id: 3, tags: null },
    ])
  })

  test('a double-quoted column name in select', async () => {
    const result = await anon().from('schools').select('"name", "id"').eq('id', 2)
    assertOk(result, [{ name: 'Escuela Rural Las Lomas', id: 2 }])
  })

  test('JSON path, cast and alias inside an embed', async () => {
    const result = await anon()
      .from('teachers')
      .select('id, courses(sala:settings->>room, id::text)')
      .eq('id', 1)
      .order('id', { referencedTable: 'courses' })
    assertOk(result, [{ id: 1, courses: [{ sala: 'A1', id: '1' }, { sala: 'B2', id: '2' }] }])
  })

  test('computed column display_name(students) is selectable, filterable and orderable', async () => {
    const all = await anon().from('students').select('id, display_name').order('display_name', { ascending: false })
    assertOk(all, [
      { id: 4, display_name: 'Gabriela, "Gaby"' },
      { id: 3, display_name: 'Fabián' },
      { id: 2, display_name: 'Elena' },
      { id: 1, display_name: 'Diego (Dieguito)' },
    ])
    const one = await anon().from('students').select('id').eq('display_name', 'Diego (Dieguito)')
    assertOk(one, [{ id: 1 }])
  })
})

describe('embedding', () => {
  test('many-to-one gives an object (courses → teachers)', async () => {
    const result = await anon().from('courses').select('id, name, teachers(id, name)').order('id')
    assertOk(result, [
      { id: 1, name: 'Matemática', teachers: { id: 1, name: 'Ana Pérez' } },
      { id: 2, name: 'Lenguaje', teachers: { id: 1, name: 'Ana Pérez' } },
      { id: 3, name: 'Historia', teachers: { id: 2, name: 'Beto Soto' } },
    ])
  })

  test('one-to-many gives an array, [] when there are no children (teachers → courses)', async () => {
    const result = await anon()
      .from('teachers')
      .select('name, courses(id, name)')
      .order('id')
      .order('id', { referencedTable: 'courses' })
    assertOk(result, [
      { name: 'Ana Pérez', courses: [{ id: 1, name: 'Matemática' }, { id: 2, name: 'Lenguaje' }] },
      { name: 'Beto Soto', courses: [{ id: 3, name: 'Historia' }] },
      { name: 'Carla Díaz', courses: [] },
    ])
  })

  test('many-to-many through enrollments, as a signed-in teacher (RLS)', async () => {
    const result = await asAna()
      .from('courses')
      .select('name, students(name)')
      .order('id')
      .order('id', { referencedTable: 'students' })
    assertOk(result, [
      { name: 'Matemática', students: [{ name: 'Diego' }, { name: 'Elena' }] },
      { name: 'Lenguaje', students: [{ name: 'Diego' }] },
    ])
  })

  test('many-to-many the other way, RLS applies to the junction and the target', async () => {
    const result = await asAna()
      .from('students')
      .select('name, courses(name)')
      .order('id')
      .order('id', { referencedTable: 'courses' })
    assertOk(result, [
      { name: 'Diego', courses: [{ name: 'Matemática' }, { name: 'Lenguaje' }] },
      { name: 'Elena', courses: [{ name: 'Matemática' }] },
      { name: 'Fabián', courses: [] },
      { name: 'Gabriela, "Gaby"', courses: [] },
    ])
  })

  test('many-to-many as anon: enrollments are hidden by RLS, so every list is empty', async () => {
    const result = await anon().from('courses').select('name, students(name)').order('id')
    assertOk(result, [
      { name: 'Matemática', students: [] },
      { name: 'Lenguaje', students: [] },
      { name: 'Historia', students: [] },
    ])
  })

  test('self-reference: the table name gives the children (one-to-many)', async () => {
    const result = await anon()
      .from('teachers')
      .select('name, teachers(name)')
      .order('id')
      .order('id', { referencedTable: 'teachers' })
    assertOk(result, [
      { name: 'Ana Pérez', teachers: [{ name: 'Beto Soto' }, { name: 'Carla Díaz' }] },
      { name: 'Beto Soto', teachers: [] },
      { name: 'Carla Díaz', teachers: [] },
    ])
  })

  test('self-reference: the FK column as target gives the parent (many-to-one)', async () => {
    const result = await anon().from('teachers').select('name, mentor:mentor_id(name)').order('id')
    assertOk(result, [
      { name: 'Ana Pérez', mentor: null },
      { name: 'Beto Soto', mentor: { name: 'Ana Pérez' } },
      { name: 'Carla Díaz', mentor: { name: 'Ana Pérez' } },
    ])
  })

  test('self-reference: teachers!mentor_id is the one-to-many side (hint = foreign column)', async () => {
    // PostgREST findRel: with a hint, a self relationship only matches O2M whose foreign-side
    // column is the hint, so `mentor:teachers!mentor_id` lists the mentees.
    const result = await anon()
      .from('teachers')
      .select('name, mentor:teachers!mentor_id(name)')
      .order('id')
      .order('id', { referencedTable: 'mentor' })
    assertOk(result, [
      { name: 'Ana Pérez', mentor: [{ name: 'Beto Soto' }, { name: 'Carla Díaz' }] },
      { name: 'Beto Soto', mentor: [] },
      { name: 'Carla Díaz', mentor: [] },
    ])
  })

  test('hints by constraint name disambiguate substitutions → teachers', async () => {
    const result = await anon()
      .from('substitutions')
      .select(
        'id, absent:teachers!substitutions_absent_teacher_id_fkey(name), substitute:teachers!substitutions_substitute_teacher_id_fkey(name)',
      )
    assertOk(result, [{ id: 1, absent: { name: 'Beto Soto' }, substitute: { name: 'Ana Pérez' } }])
  })

  test('hints by column name disambiguate substitutions → teachers', async () => {
    const result = await anon()
      .from('substitutions')
      .select('id, absent:teachers!absent_teacher_id(name), substitute:teachers!substitute_teacher_id(name)')
    assertOk(result, [{ id: 1, absent: { name: 'Beto Soto' }, substitute: { name: 'Ana Pérez' } }])
  })

  test('the FK column itself can name the embed (substitutions?select=absent_teacher_id(name))', async () => {
    const result = await anon().from('substitutions').select('id, absent_teacher_id(name)')
    assertOk(result, [{ id: 1, absent_teacher_id: { name: 'Beto Soto' } }])
  })

  test('column hint on the one-to-many side (teachers → substitutions!absent_teacher_id)', async () => {
    const result = await anon()
      .from('teachers')
      .select('name, absences:substitutions!absent_teacher_id(id), covers:substitutions!substitute_teacher_id(id)')
      .order('id')
    assertOk(result, [
      { name: 'Ana Pérez', absences: [], covers: [{ id: 1 }] },
      { name: 'Beto Soto', absences: [{ id: 1 }], covers: [] },
      { name: 'Carla Díaz', absences: [], covers: [] },
    ])
  })

  test('ambiguous many-to-one embed is PGRST201 with status 300', async () => {
    const result = await anon().from('substitutions').select('*, teachers(*)')
    assertError(
      result,
      {
        code: 'PGRST201',
        details: [
          {
            cardinality: 'many-to-one',
            embedding: 'substitutions with teachers',
            relationship: 'substitutions_absent_teacher_id_fkey using substitutions(absent_teacher_id) and teachers(id)',
          },
          {
            cardinality: 'many-to-one',
            embedding: 'substitutions with teachers',
            relationship:
              'substitutions_substitute_teacher_id_fkey using substitutions(substitute_teacher_id) and teachers(id)',
          },
        ],
        hint: "Try changing 'teachers' to one of the following: 'teachers!substitutions_absent_teacher_id_fkey', 'teachers!substitutions_substitute_teacher_id_fkey'. Find the desired relationship in the 'details' key.",
        message: "Could not embed because more than one relationship was found for 'substitutions' and 'teachers'",
      },
      300,
      'Multiple Choices',
    )
  })

  test('ambiguous one-to-many embed is PGRST201 with the origin columns first', async () => {
    const result = await anon().from('teachers').select('*, substitutions(*)')
    assertError(
      result,
      {
        code: 'PGRST201',
        details: [
          {
            cardinality: 'one-to-many',
            embedding: 'teachers with substitutions',
            relationship: 'substitutions_absent_teacher_id_fkey using teachers(id) and substitutions(absent_teacher_id)',
          },
          {
            cardinality: 'one-to-many',
            embedding: 'teachers with substitutions',
            relationship:
              'substitutions_substitute_teacher_id_fkey using teachers(id) and substitutions(substitute_teacher_id)',
          },
        ],
        hint: "Try changing 'substitutions' to one of the following: 'substitutions!substitutions_absent_teacher_id_fkey', 'substitutions!substitutions_substitute_teacher_id_fkey'. Find the desired relationship in the 'details' key.",
        message: "Could not embed because more than one relationship was found for 'teachers' and 'substitutions'",
      },
      300,
    )
  })

  test('unrelated tables are PGRST200 (no close name → hint null)', async () => {
    const result = await anon().from('schools').select('*, students(*)')
    assertError(
      result,
      {
        code: 'PGRST200',
        details: "Searched for a foreign key relationship between 'schools' and 'students' in the schema 'fixture', but no matches were found.",
        hint: null,
        message: "Could not find a relationship between 'schools' and 'students' in the schema cache",
      },
      400,
      'Bad Request',
    )
  })

  test('PGRST200 suggests no other table for one joined only through an unexposed junction', async () => {
    // student_clubs ↔ students goes through fixture_private.club_members: no relationship,
    // and, as in PostgREST, no "Perhaps you meant 'students' instead of 'student_clubs'".
    assertError(
      await anon().from('student_clubs').select('*, students(*)'),
      {
        code: 'PGRST200',
        details: "Searched for a foreign key relationship between 'student_clubs' and 'students' in the schema 'fixture', but no matches were found.",
        hint: null,
        message: "Could not find a relationship between 'student_clubs' and 'students' in the schema cache",
      },
      400,
    )
  })

  test('PGRST200 suggests a close related table name', async () => {
    const result = await anon().from('courses').select('*, student(*)')
    assertError(
      result,
      {
        code: 'PGRST200',
        details: "Searched for a foreign key relationship between 'courses' and 'student' in the schema 'fixture', but no matches were found.",
        hint: "Perhaps you meant 'students' instead of 'student'.",
        message: "Could not find a relationship between 'courses' and 'student' in the schema cache",
      },
      400,
    )
  })

  test('PGRST200 with a hint that matches nothing mentions the hint', async () => {
    const result = await anon().from('courses').select('*, teachers!nope(*)')
    assertError(
      result,
      {
        code: 'PGRST200',
        details: "Searched for a foreign key relationship between 'courses' and 'teachers' using the hint 'nope' in the schema 'fixture', but no matches were found.",
        hint: null,
        message: "Could not find a relationship between 'courses' and 'teachers' in the schema cache",
      },
      400,
    )
  })

  test('!inner with an embedded filter removes parents without a match', async () => {
    const result = await anon()
      .from('teachers')
      .select('name, courses!inner(name)')
      .eq('courses.name', 'Historia')
    assertOk(result, [{ name: 'Beto Soto', courses: [{ name: 'Historia' }] }])
  })

  test('!inner without filters drops parents that have no children', async () => {
    const result = await anon()
      .from('teachers')
      .select('name, courses!inner(id)')
      .order('id')
      .order('id', { referencedTable: 'courses' })
    assertOk(result, [
      { name: 'Ana Pérez', courses: [{ id: 1 }, { id: 2 }] },
      { name: 'Beto Soto', courses: [{ id: 3 }] },
    ])
  })

  test('!left (the default) keeps every parent and filters only the embedded rows', async () => {
    const result = await anon()
      .from('teachers')
      .select('name, courses!left(name)')
      .eq('courses.name', 'Historia')
      .order('id')
    assertOk(result, [
      { name: 'Ana Pérez', courses: [] },
      { name: 'Beto Soto', courses: [{ name: 'Historia' }] },
      { name: 'Carla Díaz', courses: [] },
    ])
  })

  test('to-one spread ...teachers(name) merges the columns into the parent', async () => {
    const result = await anon().from('courses').select('id, ...teachers(name)').order('id')
    assertOk(result, [
      { id: 1, name: 'Ana Pérez' },
      { id: 2, name: 'Ana Pérez' },
      { id: 3, name: 'Beto Soto' },
    ])
  })

  test('to-one spread with aliases inside', async () => {
    const result = await anon().from('courses').select('curso:name, ...teachers(profe:name, school_id)').order('id')
    assertOk(result, [
      { curso: 'Matemática', profe: 'Ana Pérez', school_id: 1 },
      { curso: 'Lenguaje', profe: 'Ana Pérez', school_id: 1 },
      { curso: 'Historia', profe: 'Beto Soto', school_id: 1 },
    ])
  })

  test('to-many spread gives one array per column, ordered by the embedded order', async () => {
    const result = await anon()
      .from('teachers')
      .select('id, ...courses(name)')
      .order('id')
      .order('id', { referencedTable: 'courses', ascending: false })
    assertOk(result, [
      { id: 1, name: ['Lenguaje', 'Matemática'] },
      { id: 2, name: ['Historia'] },
      { id: 3, name: [] },
    ])
  })

  test('to-many spread holding a to-many embed gives an array of arrays', async () => {
    const result = await anon()
      .from('schools')
      .select('name, ...teachers(profe:name, courses(name))')
      .order('id')
      .order('id', { referencedTable: 'teachers' })
      .order('id', { referencedTable: 'teachers.courses' })
    assertOk(result, [
      {
        name: 'Liceo Bicentenario',
        profe: ['Ana Pérez', 'Beto Soto'],
        courses: [[{ name: 'Matemática' }, { name: 'Lenguaje' }], [{ name: 'Historia' }]],
      },
      { name: 'Escuela Rural Las Lomas', profe: ['Carla Díaz'], courses: [[]] },
    ])
  })

  test('to-many spread holding a to-many spread gives one array of arrays per column', async () => {
    const result = await anon()
      .from('schools')
      .select('name, ...teachers(profe:name, ...courses(curso:name))')
      .order('id')
      .order('id', { referencedTable: 'teachers' })
      .order('id', { referencedTable: 'teachers.courses' })
    assertOk(result, [
      { name: 'Liceo Bicentenario', profe: ['Ana Pérez', 'Beto Soto'], curso: [['Matemática', 'Lenguaje'], ['Historia']] },
      { name: 'Escuela Rural Las Lomas', profe: ['Carla Díaz'], curso: [[]] },
    ])
  })

  test('to-many spread holding a to-one spread keeps a null element for a missing row', async () => {
    const result = await anon()
      .from('schools')
      .select('name, ...teachers(profe:name, ...mentor_id(mentor:name))')
      .order('id')
      .order('id', { referencedTable: 'teachers' })
    assertOk(result, [
      { name: 'Liceo Bicentenario', profe: ['Ana Pérez', 'Beto Soto'], mentor: [null, 'Ana Pérez'] },
      { name: 'Escuela Rural Las Lomas', profe: ['Carla Díaz'], mentor: ['Ana Pérez'] },
    ])
  })

  test('to-many spread orders every array by a column of its nested to-one spread', async () => {
    const result = await asAna()
      .from('students')
      .select('alumno:name, ...enrollments(grade, ...courses(name))')
      .order('id')
      .order('courses(name)', { referencedTable: 'enrollments' })
    assertOk(result, [
      { alumno: 'Diego', grade: [6.1, 6.5], name: ['Lenguaje', 'Matemática'] },
      { alumno: 'Elena', grade: [5.8], name: ['Matemática'] },
      { alumno: 'Fabián', grade: [], name: [] },
      { alumno: 'Gabriela, "Gaby"', grade: [], name: [] },
    ])
  })

  test('many-to-many spread holding a to-one spread and a to-many embed', async () => {
    const result = await asAna()
      .from('students')
      .select('name, ...courses(curso:name, ...teachers(profe:name), enrollments(grade))')
      .order('id')
      .order('id', { referencedTable: 'courses' })
      .order('student_id', { referencedTable: 'courses.enrollments' })
    assertOk(result, [
      {
        name: 'Diego',
        curso: ['Matemática', 'Lenguaje'],
        profe: ['Ana Pérez', 'Ana Pérez'],
        enrollments: [[{ grade: 6.5 }, { grade: 5.8 }], [{ grade: 6.1 }]],
      },
      { name: 'Elena', curso: ['Matemática'], profe: ['Ana Pérez'], enrollments: [[{ grade: 6.5 }, { grade: 5.8 }]] },
      { name: 'Fabián', curso: [], profe: [], enrollments: [] },
      { name: 'Gabriela, "Gaby"', curso: [], profe: [], enrollments: [] },
    ])
  })

  test('nested embedding three levels deep, with orders at each level', async () => {
    const result = await asAna()
      .from('schools')
      .select('name, teachers(name, courses(name, enrollments(student_id, grade)))')
      .order('id')
      .order('id', { referencedTable: 'teachers' })
      .order('id', { referencedTable: 'teachers.courses' })
      .order('student_id', { referencedTable: 'teachers.courses.enrollments' })
    assertOk(result, [
      {
        name: 'Liceo Bicentenario',
        teachers: [
          {
            name: 'Ana Pérez',
            courses: [
              { name: 'Matemática', enrollments: [{ student_id: 1, grade: 6.5 }, { student_id: 2, grade: 5.8 }] },
              { name: 'Lenguaje', enrollments: [{ student_id: 1, grade: 6.1 }] },
            ],
          },
          { name: 'Beto Soto', courses: [] },
        ],
      },
      { name: 'Escuela Rural Las Lomas', teachers: [{ name: 'Carla Díaz', courses: [] }] },
    ])
  })

  test('embedded filter with .eq("courses.name", …) filters only the children', async () => {
    const result = await anon()
      .from('teachers')
      .select('id, courses(name)')
      .eq('courses.name', 'Lenguaje')
      .order('id')
    assertOk(result, [
      { id: 1, courses: [{ name: 'Lenguaje' }] },
      { id: 2, courses: [] },
      { id: 3, courses: [] },
    ])
  })

  test('order with referencedTable orders the children', async () => {
    const result = await anon()
      .from('teachers')
      .select('id, courses(name)')
      .eq('id', 1)
      .order('name', { referencedTable: 'courses' })
    assertOk(result, [{ id: 1, courses: [{ name: 'Lenguaje' }, { name: 'Matemática' }] }])
  })

  test('limit with referencedTable limits the children of each parent', async () => {
    const result = await anon()
      .from('teachers')
      .select('id, courses(id)')
      .order('id')
      .order('id', { referencedTable: 'courses', ascending: false })
      .limit(1, { referencedTable: 'courses' })
    assertOk(result, [
      { id: 1, courses: [{ id: 2 }] },
      { id: 2, courses: [{ id: 3 }] },
      { id: 3, courses: [] },
    ])
  })

  test('range with referencedTable offsets the children', async () => {
    const result = await anon()
      .from('teachers')
      .select('id, courses(id)')
      .eq('id', 1)
      .order('id', { referencedTable: 'courses' })
      .range(1, 1, { referencedTable: 'courses' })
    assertOk(result, [{ id: 1, courses: [{ id: 2 }] }])
  })

  test('.not("courses", "is", null) keeps parents that have children', async () => {
    const result = await anon().from('teachers').select('name, courses()').not('courses', 'is', null).order('id')
    assertOk(result, [{ name: 'Ana Pérez' }, { name: 'Beto Soto' }])
  })

  test('.is("courses", null) keeps parents without children', async () => {
    const result = await anon().from('teachers').select('name, courses(id)').is('courses', null)
    assertOk(result, [{ name: 'Carla Díaz', courses: [] }])
  })

  test('embedded null test on a to-one embed (mentor=not.is.null)', async () => {
    const result = await anon()
      .from('teachers')
      .select('name, mentor:mentor_id(name)')
      .not('mentor', 'is', null)
      .order('id')
    assertOk(result, [
      { name: 'Beto Soto', mentor: { name: 'Ana Pérez' } },
      { name: 'Carla Díaz', mentor: { name: 'Ana Pérez' } },
    ])
  })

  test('related order on a to-one embed: order=teachers(name).desc', async () => {
    const result = await anon()
      .from('courses')
      .select('name, teachers(name)')
      .order('teachers(name)', { ascending: false })
      .order('id')
    assertOk(result, [
      { name: 'Historia', teachers: { name: 'Beto Soto' } },
      { name: 'Matemática', teachers: { name: 'Ana Pérez' } },
      { name: 'Lenguaje', teachers: { name: 'Ana Pérez' } },
    ])
  })

  test('courses(count) counts the children (count as a whole-row function)', async () => {
    const result = await anon().from('teachers').select('name, courses(count)').order('id')
    assertOk(result, [
      { name: 'Ana Pérez', courses: [{ count: 2 }] },
      { name: 'Beto Soto', courses: [{ count: 1 }] },
      { name: 'Carla Díaz', courses: [{ count: 0 }] },
    ])
  })

  test('to-one spread with a nested embed inside', async () => {
    const result = await anon().from('courses').select('id, ...teachers(profe:name, schools(name))').order('id').limit(1)
    assertOk(result, [{ id: 1, profe: 'Ana Pérez', schools: { name: 'Liceo Bicentenario' } }])
  })

  test('an aliased embed is addressed by its alias in filters and orders', async () => {
    const result = await anon()
      .from('teachers')
      .select('id, cursos:courses(name)')
      .eq('cursos.name', 'Matemática')
      .order('id')
    assertOk(result, [
      { id: 1, cursos: [{ name: 'Matemática' }] },
      { id: 2, cursos: [] },
      { id: 3, cursos: [] },
    ])
  })

  test('many-to-many derived through a view (course_overview ↔ students via enrollments)', async () => {
    const result = await asAna()
      .from('course_overview')
      .select('name, students(name)')
      .order('id')
      .order('id', { referencedTable: 'students' })
    assertOk(result, [
      { name: 'Matemática', students: [{ name: 'Diego' }, { name: 'Elena' }] },
      { name: 'Lenguaje', students: [{ name: 'Diego' }] },
      { name: 'Historia', students: [] },
    ])
  })

  test('embedding through a view uses the relationships of its base table', async () => {
    const result = await anon().from('course_overview').select('name, teachers(school_id)').order('id')
    assertOk(result, [
      { name: 'Matemática', teachers: { school_id: 1 } },
      { name: 'Lenguaje', teachers: { school_id: 1 } },
      { name: 'Historia', teachers: { school_id: 1 } },
    ])
  })
})

describe('filters', () => {
  const students = () => anon().from('students').select('id')

  test('eq / neq', async () => {
    assertOk(await students().eq('name', 'Elena'), [{ id: 2 }])
    assertOk(await students().neq('id', 1).order('id'), [{ id: 2 }, { id: 3 }, { id: 4 }])
  })

  test('eq with a value holding commas and quotes is taken verbatim', async () => {
    assertOk(await students().eq('name', 'Gabriela, "Gaby"'), [{ id: 4 }])
  })

  test('gt / gte / lt / lte (dates; NULL never matches)', async () => {
    assertOk(await students().gt('birthday', '2018-05-01'), [{ id: 2 }])
    assertOk(await students().gte('birthday', '2018-05-01').order('id'), [{ id: 1 }, { id: 2 }])
    assertOk(await students().lt('birthday', '2018-05-01'), [{ id: 3 }])
    assertOk(await students().lte('birthday', '2018-05-01').order('id'), [{ id: 1 }, { id: 3 }])
  })

  test('gt on numeric', async () => {
    const result = await asAna().from('enrollments').select('course_id, student_id').gt('grade', 6).order('grade')
    assertOk(result, [{ course_id: 2, student_id: 1 }, { course_id: 1, student_id: 1 }])
  })

  test('like with % and with * (case-sensitive)', async () => {
    assertOk(await students().like('name', '%a%').order('id'), [{ id: 2 }, { id: 3 }, { id: 4 }])
    assertOk(await students().like('name', '*ab*').order('id'), [{ id: 3 }, { id: 4 }])
    assertOk(await students().like('name', 'd%'), [])
  })

  test('ilike with % and with *', async () => {
    assertOk(await students().ilike('name', 'd%'), [{ id: 1 }])
    assertOk(await students().ilike('name', '*E*').order('id'), [{ id: 1 }, { id: 2 }, { id: 4 }])
  })

  test('likeAnyOf / likeAllOf (also with * wildcards)', async () => {
    assertOk(await students().likeAnyOf('name', ['D%', 'E%']).order('id'), [{ id: 1 }, { id: 2 }])
    assertOk(await students().likeAnyOf('name', ['D*', 'F*']).order('id'), [{ id: 1 }, { id: 3 }])
    assertOk(await students().likeAllOf('name', ['%a%', '%b%']).order('id'), [{ id: 3 }, { id: 4 }])
  })

  test('ilikeAnyOf / ilikeAllOf', async () => {
    assertOk(await students().ilikeAnyOf('name', ['%DIE%', '%LEN%']).order('id'), [{ id: 1 }, { id: 2 }])
    assertOk(await students().ilikeAllOf('name', ['%G%', '%Y%']), [{ id: 4 }])
  })

  test('regexMatch / regexIMatch', async () => {
    assertOk(await students().regexMatch('name', '^[DE]').order('id'), [{ id: 1 }, { id: 2 }])
    assertOk(await students().regexMatch('name', '^g'), [])
    assertOk(await students().regexIMatch('name', '^g'), [{ id: 4 }])
  })

  test('in with numbers and with plain strings', async () => {
    assertOk(await students().in('id', [1, 3]).order('id'), [{ id: 1 }, { id: 3 }])
    assertOk(await students().in('name', ['Diego', 'Fabián']).order('id'), [{ id: 1 }, { id: 3 }])
  })

  test('in with a string containing a comma (supabase-js quotes it)', async () => {
    const result = await anon()
      .from('rooms')
      .select('id')
      .in('notes', ['planta baja, ala norte', '50% reservado'])
      .order('id')
    assertOk(result, [{ id: 1 }, { id: 3 }])
  })

  test('in with `Gabriela, "Gaby"`: supabase-js does not escape inner quotes, so PostgREST matches nothing', async () => {
    // Sent as in.("Gabriela, "Gaby""): the quoted element ends at the inner quote and is not
    // followed by , or ), so PostgREST reads raw elements `"Gabriela` and ` "Gaby""`.
    assertOk(await students().in('name', ['Gabriela, "Gaby"']), [])
  })

  test('in with backslash-escaped quotes through filter() matches `Gabriela, "Gaby"`', async () => {
    const result = await students().filter('name', 'in', '("Gabriela, \\"Gaby\\"",Elena)').order('id')
    assertOk(result, [{ id: 2 }, { id: 4 }])
  })

  test('notIn and not(col, "in", …)', async () => {
    assertOk(await students().notIn('id', [1, 2]).order('id'), [{ id: 3 }, { id: 4 }])
    assertOk(await students().not('id', 'in', '(1,2,3)'), [{ id: 4 }])
  })

  test('uuid and enum columns: eq/is on uuid, enum comparisons follow the enum order', async () => {
    const teachers = () => anon().from('teachers').select('id')
    assertOk(await teachers().eq('user_id', ANA), [{ id: 1 }])
    assertOk(await teachers().is('user_id', null), [{ id: 3 }])
    const courses = () => anon().from('courses').select('id')
    assertOk(await courses().gt('level', '1° básico').order('id'), [{ id: 2 }, { id: 3 }])
    assertOk(await courses().lt('level', '1° medio').order('id'), [{ id: 1 }, { id: 2 }])
    assertOk(await courses().in('level', ['1° básico', '1° medio']).order('id'), [{ id: 1 }, { id: 3 }])
  })

  test('is null / not is null', async () => {
    assertOk(await students().is('nickname', null).order('id'), [{ id: 2 }, { id: 3 }, { id: 4 }])
    assertOk(await students().not('nickname', 'is', null), [{ id: 1 }])
  })

  test('is true / is false / is null on a boolean', async () => {
    const rooms = () => anon().from('rooms').select('code')
    assertOk(await rooms().is('accessible', true), [{ code: 'A1' }])
    assertOk(await rooms().is('accessible', false), [{ code: 'B2' }])
    assertOk(await rooms().is('accessible', null), [{ code: 'C3' }])
    assertOk(await rooms().not('accessible', 'is', true).order('id'), [{ code: 'B2' }, { code: 'C3' }])
  })

  test('isDistinct treats NULL as a value', async () => {
    const rooms = () => anon().from('rooms').select('id')
    assertOk(await rooms().isDistinct('accessible', true).order('id'), [{ id: 2 }, { id: 3 }])
    assertOk(await rooms().isDistinct('capacity', 30).order('id'), [{ id: 2 }, { id: 3 }])
  })

  test('contains / containedBy / overlaps on text[]', async () => {
    const courses = () => anon().from('courses').select('id')
    assertOk(await courses().contains('tags', ['numeros']), [{ id: 1 }])
    assertOk(await courses().containedBy('tags', ['lectura', 'arte']).order('id'), [{ id: 2 }, { id: 3 }])
    assertOk(await courses().overlaps('tags', ['calculo', 'lectura']).order('id'), [{ id: 1 }, { id: 2 }])
  })

  test('contains / containedBy on jsonb', async () => {
    const courses = () => anon().from('courses').select('id')
    assertOk(await courses().contains('settings', { weekly: { hours: 6 } }), [{ id: 1 }])
    assertOk(await courses().containedBy('settings', { room: 'B2', extra: 1 }).order('id'), [{ id: 2 }, { id: 3 }])
  })

  test('range operators on int4range: sr, sl, nxl, nxr, adj, ov', async () => {
    const courses = () => anon().from('courses').select('id')
    assertOk(await courses().rangeGt('hours', '[2,9)'), [{ id: 2 }])
    assertOk(await courses().rangeLt('hours', '[10,20)'), [{ id: 1 }])
    assertOk(await courses().rangeGte('hours', '[9,20)'), [{ id: 2 }])
    assertOk(await courses().rangeLte('hours', '[0,11)'), [{ id: 1 }])
    assertOk(await courses().rangeAdjacent('hours', '[12,14)'), [{ id: 2 }])
    assertOk(await courses().overlaps('hours', '[11,13)'), [{ id: 2 }])
    assertOk(await courses().contains('hours', '[8,9]'), [{ id: 1 }])
  })

  test('textSearch on the tsvector column: fts / plain / phrase / websearch with config spanish', async () => {
    const courses = () => anon().from('courses').select('id')
    assertOk(await courses().textSearch('summary', 'historia', { config: 'spanish' }), [{ id: 3 }])
    assertOk(
      await courses().textSearch('summary', "'historia' | 'matemática'", { config: 'spanish' }).order('id'),
      [{ id: 1 }, { id: 3 }],
    )
    assertOk(await courses().textSearch('summary', 'Matemáticas', { type: 'plain', config: 'spanish' }), [{ id: 1 }])
    assertOk(await courses().textSearch('summary', 'lenguaje', { type: 'phrase', config: 'spanish' }), [{ id: 2 }])
    assertOk(
      await courses().textSearch('summary', '"lenguaje" or historia', { type: 'websearch', config: 'spanish' }).order('id'),
      [{ id: 2 }, { id: 3 }],
    )
  })

  test('textSearch on a domain over a domain over tsvector uses the column as it is', async () => {
    const search = () => anon().from('course_search').select('id')
    assertOk(await search().textSearch('summary', 'historia', { config: 'spanish' }), [{ id: 3 }])
    assertOk(await search().textSearch('summary', 'Matemáticas', { type: 'plain', config: 'spanish' }), [{ id: 1 }])
  })

  test('textSearch on a text column wraps it in to_tsvector(config, …)', async () => {
    const courses = () => anon().from('courses').select('id')
    assertOk(await courses().textSearch('name', 'historia', { config: 'spanish' }), [{ id: 3 }])
    assertOk(await courses().textSearch('name', 'lenguaje', { type: 'phrase', config: 'spanish' }), [{ id: 2 }])
  })

  test('not() negates any operator', async () => {
    assertOk(await students().not('name', 'like', '*a*'), [{ id: 1 }])
    assertOk(await students().not('id', 'gt', 2).order('id'), [{ id: 1 }, { id: 2 }])
  })

  test('or() with plain leaves', async () => {
    assertOk(await students().or('id.eq.1,name.eq.Elena').order('id'), [{ id: 1 }, { id: 2 }])
  })

  test('or() with a nested and() and a negated and()', async () => {
    assertOk(
      await students().or('id.eq.1,and(birthday.gte.2018-01-01,nickname.is.null)').order('id'),
      [{ id: 1 }, { id: 2 }],
    )
    assertOk(await students().or('not.and(id.gt.1,id.lt.4)').order('id'), [{ id: 1 }, { id: 4 }])
  })

  test('or() with a double-quoted value holding a comma and escaped quotes', async () => {
    const result = await students().or('name.eq."Gabriela, \\"Gaby\\"",id.eq.3').order('id')
    assertOk(result, [{ id: 3 }, { id: 4 }])
  })

  test('or() with in and a brace array inside the tree', async () => {
    const result = await anon().from('courses').select('id').or('id.in.(2,3),tags.cs.{numeros,calculo}').order('id')
    assertOk(result, [{ id: 1 }, { id: 2 }, { id: 3 }])
    const none = await anon().from('courses').select('id').or('id.in.(2),tags.cs.{numeros,lectura}')
    assertOk(none, [{ id: 2 }])
  })

  test('or() on a referenced table filters the embedded rows only', async () => {
    const result = await anon()
      .from('teachers')
      .select('name, courses(name)')
      .or('name.eq.Lenguaje,name.eq.Historia', { referencedTable: 'courses' })
      .order('id')
    assertOk(result, [
      { name: 'Ana Pérez', courses: [{ name: 'Lenguaje' }] },
      { name: 'Beto Soto', courses: [{ name: 'Historia' }] },
      { name: 'Carla Díaz', courses: [] },
    ])
  })

  test('multiple filters on one column are ANDed', async () => {
    assertOk(await students().gte('id', 2).lte('id', 3).order('id'), [{ id: 2 }, { id: 3 }])
  })

  test('match({}) ANDs equalities', async () => {
    assertOk(await students().match({ birthday: '2018-05-01', nickname: 'Dieguito' }), [{ id: 1 }])
    assertOk(await students().match({ birthday: '2018-05-01', nickname: 'Otro' }), [])
  })

  test('filter() sends the raw operator, including quantifiers', async () => {
    assertOk(await students().filter('id', 'in', '(2,3)').order('id'), [{ id: 2 }, { id: 3 }])
    assertOk(await students().filter('id', 'eq(any)', '{1,3}').order('id'), [{ id: 1 }, { id: 3 }])
    assertOk(await students().filter('id', 'not.lt(all)', '{2,3}').order('id'), [{ id: 2 }, { id: 3 }, { id: 4 }])
    assertOk(await anon().from('courses').select('id').filter('tags', 'cs', '{lectura}'), [{ id: 2 }])
  })

  test('JSON-path filters: ->> compares text, -> compares jsonb', async () => {
    const courses = () => anon().from('courses').select('id')
    assertOk(await courses().eq('settings->>room', 'B2'), [{ id: 2 }])
    assertOk(await courses().eq('settings->weekly->hours', 6), [{ id: 1 }])
    assertOk(await courses().eq('settings->weekly->>hours', '6'), [{ id: 1 }])
    assertOk(await courses().is('settings->>room', null), [{ id: 3 }])
  })

  test('filter on a column of the embedded view rows (course_overview)', async () => {
    const result = await anon().from('course_overview').select('id').eq('teacher_name', 'Ana Pérez').order('id')
    assertOk(result, [{ id: 1 }, { id: 2 }])
  })
})

describe('order, paging, single and media types', () => {
  const students = () => anon().from('students').select('id')

  test('order ascending puts NULLs last, descending puts NULLs first (PostgreSQL default)', async () => {
    assertOk(await students().order('birthday'), [{ id: 3 }, { id: 1 }, { id: 2 }, { id: 4 }])
    assertOk(await students().order('birthday', { ascending: false }), [{ id: 4 }, { id: 2 }, { id: 1 }, { id: 3 }])
  })

  test('nullsFirst true/false', async () => {
    assertOk(await students().order('birthday', { nullsFirst: true }), [{ id: 4 }, { id: 3 }, { id: 1 }, { id: 2 }])
    assertOk(
      await students().order('birthday', { ascending: false, nullsFirst: false }),
      [{ id: 2 }, { id: 1 }, { id: 3 }, { id: 4 }],
    )
  })

  test('multiple orders', async () => {
    const result = await students().order('nickname', { nullsFirst: true }).order('id', { ascending: false })
    assertOk(result, [{ id: 4 }, { id: 3 }, { id: 2 }, { id: 1 }])
  })

  test('order on a JSON path', async () => {
    const result = await anon()
      .from('courses')
      .select('id')
      .order('settings->>room', { ascending: false, nullsFirst: false })
    assertOk(result, [{ id: 2 }, { id: 1 }, { id: 3 }])
  })

  test('limit', async () => {
    assertOk(await students().order('id').limit(2), [{ id: 1 }, { id: 2 }])
    assertOk(await students().order('id').limit(0), [])
  })

  test('range(from, to) is inclusive', async () => {
    assertOk(await students().order('id').range(1, 2), [{ id: 2 }, { id: 3 }])
  })

  test('single() with one row gives the object', async () => {
    const result = await anon().from('students').select('id, name').eq('id', 1).single()
    assertOk(result, { id: 1, name: 'Diego' })
  })

  test('single() with no row is PGRST116 (406)', async () => {
    const result = await anon().from('students').select('id').eq('id', 99).single()
    assertError(
      result,
      {
        code: 'PGRST116',
        details: 'The result contains 0 rows',
        hint: null,
        message: 'Cannot coerce the result to a single JSON object',
      },
      406,
      'Not Acceptable',
    )
  })

  test('single() with several rows is PGRST116 (406)', async () => {
    const result = await anon().from('students').select('id').single()
    assertError(
      result,
      {
        code: 'PGRST116',
        details: 'The result contains 4 rows',
        hint: null,
        message: 'Cannot coerce the result to a single JSON object',
      },
      406,
    )
  })

  test('maybeSingle(): one row → object, none → null', async () => {
    assertOk(await anon().from('students').select('name').eq('id', 2).maybeSingle(), { name: 'Elena' })
    assertOk(await anon().from('students').select('name').eq('id', 99).maybeSingle(), null)
  })

  test('maybeSingle() with several rows is the client-side PGRST116', async () => {
    const result = await anon().from('students').select('name').lte('id', 2).maybeSingle()
    assertError(
      result,
      {
        code: 'PGRST116',
        details: 'Results contain 2 rows, application/vnd.pgrst.object+json requires 1 row',
        hint: null,
        message: 'JSON object requested, multiple (or no) rows returned',
      },
      406,
    )
  })

  test('csv() gives PostgreSQL record text with a header line', async () => {
    const result = await anon().from('students').select('id, name, nickname').order('id').csv()
    assertOk(result, 'id,name,nickname\n1,Diego,Dieguito\n2,Elena,\n3,Fabián,\n4,"Gabriela, ""Gaby""",')
  })

  test('stripNulls() drops null-valued keys (array and single object)', async () => {
    const rows = await anon().from('schools').select('*').order('id').stripNulls()
    assertOk(rows, [
      { id: 1, name: 'Liceo Bicentenario', region: 'Metropolitana', founded: '1990-03-01' },
      { id: 2, name: 'Escuela Rural Las Lomas', region: 'Ñuble' },
    ])
    const one = await anon().from('students').select('id, nickname, birthday').eq('id', 4).single().stripNulls()
    assertOk(one, { id: 4 })
  })

  test('explain() is refused when db-plan-enabled is off (Supabase default): PGRST107', async () => {
    const result = await anon().from('students').select('id').explain()
    assertError(
      result,
      {
        code: 'PGRST107',
        details: null,
        hint: null,
        message: 'None of these media types are available: application/vnd.pgrst.plan+text; for="application/json"',
      },
      406,
    )
  })

  test('csv() of an empty result is a lone newline', async () => {
    const result = await anon().from('students').select('id').eq('id', 99).csv()
    assertOk(result, '\n')
  })
})

describe('media type handlers (functions and aggregates returning domains named like media types)', () => {
  const raw = (supabase, path, accept) =>
    supabase.schema(FIXTURE_SCHEMA).fetch(`${gateway.url}/rest/v1${path}`, { headers: { Accept: accept } })

  test('a function returning "text/html" answers its value as is, with that Content-Type', async () => {
    const response = await raw(anon(), '/rpc/course_page?id=1', 'text/html')
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'text/html')
    assert.equal(await response.text(), '<h1>Matemática</h1><p>1° básico</p>')
  })

  test('a browser\'s Accept gets the page; supabase-js (JSON) gets the value as a JSON string', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'
    const page = await raw(anon(), '/rpc/course_page?id=3', browser)
    assert.equal(page.headers.get('content-type'), 'text/html')
    assert.equal(await page.text(), '<h1>Historia</h1><p>1° medio</p>')
    assertOk(await anon().rpc('course_page', { id: 2 }, { get: true }), '<h1>Lenguaje</h1><p>2° básico</p>')
    // A relation without handlers answers JSON to the same browser.
    const courses = await raw(anon(), '/courses?select=id&id=eq.1', browser)
    assert.equal(courses.headers.get('content-type'), 'application/json; charset=utf-8')
    assert.deepEqual(await courses.json(), [{ id: 1 }])
  })

  test('"application/octet-stream": the bytes exactly, without a charset', async () => {
    const response = await raw(anon(), '/rpc/school_logo?id=2', 'application/octet-stream')
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/octet-stream')
    assert.deepEqual([...new Uint8Array(await response.arrayBuffer())], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 2])
  })

  test('a handler answers only its own media type: the first acceptable one wins, none is PGRST107 (406)', async () => {
    const page = await raw(anon(), '/rpc/course_page?id=1', 'text/plain, text/html;q=0.5')
    assert.equal(page.status, 200)
    assert.equal(page.headers.get('content-type'), 'text/html')
    for (const [path, accept] of [
      ['/rpc/course_page?id=1', 'text/plain'],
      ['/rpc/school_logo?id=1', 'image/png'],
      ['/courses', 'text/html'],
    ]) {
      const response = await raw(anon(), path, accept)
      assert.equal(response.status, 406, path)
      assert.equal(response.headers.get('content-type'), 'application/json; charset=utf-8')
      assert.deepEqual(await response.json(), {
        code: 'PGRST107',
        details: null,
        hint: null,
        message: `None of these media types are available: ${accept}`,
      })
    }
  })

  test('csv() of enrollments is the table\'s own "text/csv" aggregate; with other columns selected, the built-in CSV (PostgREST #3160)', async () => {
    const enrollments = () => asAna().from('enrollments')
    const own = await enrollments().select().order('course_id').order('student_id').csv()
    assertOk(own, 'curso;estudiante;nota\n1;1;6,5\n1;2;5,8\n2;1;6,1')
    // The aggregate takes whole rows of the table.
    const builtIn = await enrollments().select('course_id, grade').order('course_id').order('student_id').csv()
    assertOk(builtIn, 'course_id,grade\n1,6.5\n1,5.8\n2,6.1')
  })
})

describe('counts', () => {
  test('count exact with head: no data, the total', async () => {
    const result = await anon().from('students').select('*', { count: 'exact', head: true })
    assertOk(result, null, { count: 4 })
  })

  test('head without count: no data, no count', async () => {
    const result = await anon().from('students').select('*', { head: true })
    assertOk(result, null)
  })

  test('count exact with filters and data', async () => {
    const result = await anon().from('students').select('id', { count: 'exact' }).gt('id', 1).order('id')
    assertOk(result, [{ id: 2 }, { id: 3 }, { id: 4 }], { count: 3 })
  })

  test('count exact with range is 206 Partial Content when rows are left out', async () => {
    const result = await anon().from('students').select('id', { count: 'exact' }).order('id').range(0, 1)
    assertOk(result, [{ id: 1 }, { id: 2 }], { status: 206, statusText: 'Partial Content', count: 4 })
  })

  test('count exact with an offset equal to the total is 206 with no rows', async () => {
    const result = await anon().from('students').select('id', { count: 'exact' }).order('id').range(4, 5)
    assertOk(result, [], { status: 206, count: 4 })
  })

  test('count exact with an offset beyond the total is 416 PGRST103', async () => {
    const result = await anon().from('students').select('id', { count: 'exact' }).range(10, 12)
    assertError(
      result,
      {
        code: 'PGRST103',
        details: 'An offset of 10 was requested, but there are only 4 rows.',
        hint: null,
        message: 'Requested range not satisfiable',
      },
      416,
    )
  })

  test('count respects RLS and !inner filters', async () => {
    const mine = await asBeto().from('courses').select('id', { count: 'exact', head: true })
    assertOk(mine, null, { count: 1 })
    const inner = await anon()
      .from('teachers')
      .select('name, courses!inner(name)', { count: 'exact' })
      .eq('courses.name', 'Historia')
    assertOk(inner, [{ name: 'Beto Soto', courses: [{ name: 'Historia' }] }], { count: 1 })
  })

  test('count planned is the planner estimate of the count query (EXPLAIN Plan Rows)', async () => {
    // rooms was never analyzed: PostgreSQL estimates far more than its 3 rows.
    const estimate = await plannerEstimate('SELECT 1 FROM "fixture"."rooms"')
    assert.ok(estimate > 3, `planner estimate ${estimate}`)
    const head = await anon().from('rooms').select('*', { count: 'planned', head: true })
    assertOk(head, null, { status: 206, count: estimate })
    const rows = await anon().from('rooms').select('id', { count: 'planned' }).order('id')
    assertOk(rows, [{ id: 1 }, { id: 2 }, { id: 3 }], { status: 206, count: estimate })
  })

  test('count estimated is exact while the count stays under db-max-rows (1000)', async () => {
    const head = await anon().from('rooms').select('*', { count: 'estimated', head: true })
    assertOk(head, null, { count: 3 })
    const rows = await anon().from('rooms').select('code', { count: 'estimated' }).order('id')
    assertOk(rows, [{ code: 'A1' }, { code: 'B2' }, { code: 'C3' }], { count: 3 })
  })

  test('db-max-rows (1000) caps the rows returned; count exact still gives the total (206)', async () => {
    const result = await anon().from('numbers').select('n', { count: 'exact' }).order('n')
    assert.equal(result.error, null)
    assert.equal(result.data.length, 1000)
    assert.deepEqual(result.data.at(-1), { n: 1000 })
    assert.equal(result.status, 206)
    assert.equal(result.count, 1500)
  })

  test('count estimated above db-max-rows: max(exact count limited to 1001, planner estimate)', async () => {
    const estimate = await plannerEstimate('SELECT 1 FROM "fixture"."numbers"')
    assert.notEqual(estimate, 1500, 'the planner estimate must differ from the exact count')
    const result = await anon().from('numbers').select('*', { count: 'estimated', head: true })
    assertOk(result, null, { status: 206, count: Math.max(1001, estimate) })
  })
})

describe('errors', () => {
  test('an .in() list past the 16 KiB URI limit is 414 "URI too long", as Supabase answers it', async () => {
    // Real Supabase refuses such a request at its edge, in plain text; supabase-js then
    // reports the text as the message (supabase/supabase-js#766).
    const ids = Array.from({ length: 4000 }, (_, index) => index + 1)
    const result = await anon().from('courses').select('id').in('id', ids)
    assertError(result, { message: 'URI too long\n' }, 414, 'URI Too Long')
    // 1,000 ids fit: the list runs as a filter like any other.
    const fits = await anon().from('courses').select('id').in('id', ids.slice(0, 1000)).order('id')
    assertOk(fits, [{ id: 1 }, { id: 2 }, { id: 3 }])
  })

  test('unknown table is PGRST205 (404) with a suggestion', async () => {
    const result = await anon().from('course').select('*')
    assertError(
      result,
      {
        code: 'PGRST205',
        details: null,
        hint: "Perhaps you meant the table 'fixture.courses'",
        message: "Could not find the table 'fixture.course' in the schema cache",
      },
      404,
      'Not Found',
    )
  })

  test('unknown table without a close name has hint null', async () => {
    const result = await anon().from('cursos').select('*')
    assertError(
      result,
      {
        code: 'PGRST205',
        details: null,
        hint: null,
        message: "Could not find the table 'fixture.cursos' in the schema cache",
      },
      404,
    )
  })

  test('unknown column in select is PostgreSQL 42703 (400) with its hint', async () => {
    const result = await anon().from('courses').select('id, nam')
    assertError(
      result,
      {
        code: '42703',
        details: null,
        hint: 'Perhaps you meant to reference the column "courses.name".',
        message: 'column courses.nam does not exist',
      },
      400,
      'Bad Request',
    )
  })

  test('unknown column in an embed names PostgREST\'s alias teachers_1', async () => {
    const result = await anon().from('courses').select('id, teachers(nam)')
    assertError(
      result,
      {
        code: '42703',
        details: null,
        hint: 'Perhaps you meant to reference the column "teachers_1.name".',
        message: 'column teachers_1.nam does not exist',
      },
      400,
    )
  })

  test('unknown column in a filter is 42703 too', async () => {
    const result = await anon().from('students').select('id').eq('nope', 1)
    assertError(
      result,
      {
        code: '42703',
        details: null,
        hint: 'Perhaps you meant to reference the column "students.name".',
        message: 'column students.nope does not exist',
      },
      400,
    )
  })

  test('a value of the wrong type is PostgreSQL 22P02 (400)', async () => {
    const result = await anon().from('students').select('id').eq('id', 'abc')
    assertError(
      result,
      { code: '22P02', details: null, hint: null, message: 'invalid input syntax for type integer: "abc"' },
      400,
    )
  })

  test('unknown operator via filter() is PGRST100', async () => {
    const result = await anon().from('students').select('id').filter('id', 'xx', '1')
    assertError(
      result,
      {
        code: 'PGRST100',
        details: 'unexpected "x" expecting "not" or operator (eq, gt, ...)',
        hint: null,
        message: '"failed to parse filter (xx.1)" (line 1, column 1)',
      },
      400,
    )
  })

  test('unparsable select is PGRST100', async () => {
    const result = await anon().from('students').select('id,')
    assertError(
      result,
      {
        code: 'PGRST100',
        details: 'unexpected end of input expecting "...", field name (* or [a..z0..9_$]), "*" or "count()"',
        hint: null,
        message: '"failed to parse select parameter (id,)" (line 1, column 4)',
      },
      400,
    )
  })

  test('unparsable order is PGRST100', async () => {
    const result = await anon().from('students').select('id').order('id.x')
    assertError(
      result,
      {
        code: 'PGRST100',
        details: 'unexpected "x" expecting "asc", "desc", "nullsfirst" or "nullslast"',
        hint: null,
        message: '"failed to parse order (id.x.asc)" (line 1, column 4)',
      },
      400,
    )
  })

  test('in without parentheses is PGRST100', async () => {
    const result = await anon().from('students').select('id').filter('id', 'in', '1,2')
    assertError(
      result,
      {
        code: 'PGRST100',
        details: 'unexpected "1" expecting "("',
        hint: null,
        message: '"failed to parse filter (in.1,2)" (line 1, column 4)',
      },
      400,
    )
  })

  test('or() with a trailing comma is PGRST100 (logic tree columns count from "or(")', async () => {
    const result = await anon().from('students').select('id').or('id.eq.1,')
    assertError(
      result,
      {
        code: 'PGRST100',
        details: 'unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)',
        hint: null,
        message: '"failed to parse logic tree ((id.eq.1,))" (line 1, column 12)',
      },
      400,
    )
  })

  test('an order on a resource that is not embedded is PGRST108', async () => {
    const result = await anon().from('teachers').select('id').order('id', { referencedTable: 'nope' })
    assertError(
      result,
      {
        code: 'PGRST108',
        details: null,
        hint: "Verify that 'nope' is included in the 'select' query parameter.",
        message: "'nope' is not an embedded resource in this request",
      },
      400,
    )
  })

  test('a filter on a resource that is not embedded is PGRST108', async () => {
    const result = await anon().from('teachers').select('name').eq('courses.name', 'Historia')
    assertError(
      result,
      {
        code: 'PGRST108',
        details: null,
        hint: "Verify that 'courses' is included in the 'select' query parameter.",
        message: "'courses' is not an embedded resource in this request",
      },
      400,
    )
  })

  test('a related order on a to-many embed is PGRST118', async () => {
    const result = await anon().from('teachers').select('name, courses(name)').order('courses(name)')
    assertError(
      result,
      {
        code: 'PGRST118',
        details: "'teachers' and 'courses' do not form a many-to-one or one-to-one relationship",
        hint: null,
        message: "A related order on 'courses' is not possible",
      },
      400,
    )
  })

  test('schema() with an unexposed schema is PGRST106 (406)', async () => {
    const result = await anon().schema('private').from('courses').select('*')
    assertError(
      result,
      {
        code: 'PGRST106',
        details: null,
        hint: 'Only the following schemas are exposed: fixture',
        message: 'Invalid schema: private',
      },
      406,
      'Not Acceptable',
    )
  })

  test('anon reading a table it has no grant on is 42501 with 401', async () => {
    const result = await anon().from('grades_private').select('*')
    assertError(
      result,
      { code: '42501', details: null, hint: null, message: 'permission denied for table grades_private' },
      401,
      'Unauthorized',
    )
  })

  test('an authenticated user with the grant reads grades_private (empty)', async () => {
    assertOk(await asAna().from('grades_private').select('*'), [])
  })

  test('an expired JWT is PGRST303 "JWT expired" (401)', async () => {
    const token = userToken(ANA, 'ana@colegio.cl', { expiresIn: -3600 })
    const result = await withHeader(token).from('courses').select('id')
    assertError(result, { code: 'PGRST303', details: null, hint: null, message: 'JWT expired' }, 401, 'Unauthorized')
  })

  test('a JWT that expired less than 30 s ago is still accepted (clock skew)', async () => {
    const token = userToken(ANA, 'ana@colegio.cl', { expiresIn: -10 })
    assertOk(await withHeader(token).from('courses').select('id').order('id'), [{ id: 1 }, { id: 2 }])
  })

  test('a JWT with two parts is PGRST301 "Expected 3 parts in JWT; got 2"', async () => {
    const result = await withHeader('abc.def').from('courses').select('id')
    assertError(
      result,
      { code: 'PGRST301', details: null, hint: null, message: 'Expected 3 parts in JWT; got 2' },
      401,
    )
  })

  test('a JWT whose role does not exist is PostgreSQL 22023 mapped to 401', async () => {
    const now = Math.floor(Date.now() / 1000)
    const token = signJwt({ sub: ANA, role: 'nobody', aud: 'authenticated', exp: now + 600, iat: now })
    const result = await withHeader(token).from('courses').select('id')
    assertError(result, { code: '22023', details: null, hint: null, message: 'role "nobody" does not exist' }, 401)
  })

  test('a JWT without a role claim runs as anon', async () => {
    const now = Math.floor(Date.now() / 1000)
    const token = signJwt({ sub: ANA, aud: 'authenticated', exp: now + 600, iat: now })
    // anon's policy shows every course; ana (authenticated) would see only 1 and 2.
    assertOk(await withHeader(token).from('courses').select('id').order('id'), [{ id: 1 }, { id: 2 }, { id: 3 }])
  })

  test('a JWT signed with another secret is PGRST301 (401)', async () => {
    const token = userToken(ANA, 'ana@colegio.cl', { secret: 'another-secret-that-is-long-enough-0123456789' })
    const result = await withHeader(token).from('courses').select('id')
    assertError(
      result,
      {
        code: 'PGRST301',
        details: 'None of the keys was able to decode the JWT',
        hint: null,
        message: 'No suitable key or wrong key type',
      },
      401,
    )
  })
})

describe('row-level security and views', () => {
  test('user tokens see only their own courses', async () => {
    assertOk(await asAna().from('courses').select('id, name').order('id'), [
      { id: 1, name: 'Matemática' },
      { id: 2, name: 'Lenguaje' },
    ])
    assertOk(await asBeto().from('courses').select('id, name'), [{ id: 3, name: 'Historia' }])
    const stranger = withHeader(userToken(STRANGER, 'nadie@colegio.cl'))
    assertOk(await stranger.from('courses').select('id'), [])
  })

  test('the service_role key and the secret key bypass RLS', async () => {
    for (const key of [gateway.serviceRoleKey, gateway.secretKey]) {
      const supabase = createClient(gateway.url, key, { auth: { persistSession: false }, db: { schema: FIXTURE_SCHEMA } })
      const result = await supabase
        .from('enrollments')
        .select('course_id, student_id', { count: 'exact' })
        .order('course_id')
        .order('student_id')
      assertOk(
        result,
        [
          { course_id: 1, student_id: 1 },
          { course_id: 1, student_id: 2 },
          { course_id: 2, student_id: 1 },
          { course_id: 3, student_id: 3 },
        ],
        { count: 4 },
      )
    }
  })

  test('anon sees every course (policy for anon) but no enrollment', async () => {
    assertOk(await anon().from('courses').select('id').order('id'), [{ id: 1 }, { id: 2 }, { id: 3 }])
    assertOk(await anon().from('enrollments').select('*'), [])
  })

  test('enrollments follow the courses the user can see', async () => {
    const result = await asAna()
      .from('enrollments')
      .select('course_id, student_id, grade')
      .order('course_id')
      .order('student_id')
    assertOk(result, [
      { course_id: 1, student_id: 1, grade: 6.5 },
      { course_id: 1, student_id: 2, grade: 5.8 },
      { course_id: 2, student_id: 1, grade: 6.1 },
    ])
  })

  test('view course_overview (owner privileges: RLS of courses does not filter it)', async () => {
    const expected = [
      { id: 1, name: 'Matemática', teacher_id: 1, teacher_name: 'Ana Pérez' },
      { id: 2, name: 'Lenguaje', teacher_id: 1, teacher_name: 'Ana Pérez' },
      { id: 3, name: 'Historia', teacher_id: 2, teacher_name: 'Beto Soto' },
    ]
    assertOk(await anon().from('course_overview').select('*').order('id'), expected)
    assertOk(await asBeto().from('course_overview').select('*').order('id'), expected)
  })

  test('security_invoker view: rows filtered per user', async () => {
    assertOk(await anon().from('my_courses').select('id').order('id'), [{ id: 1 }, { id: 2 }, { id: 3 }])
    assertOk(await asAna().from('my_courses').select('id').order('id'), [{ id: 1 }, { id: 2 }])
    assertOk(await asBeto().from('my_courses').select('id, name, teacher_id'), [
      { id: 3, name: 'Historia', teacher_id: 2 },
    ])
  })

  test('embedding a view from a table (teachers → course_overview)', async () => {
    const result = await anon()
      .from('teachers')
      .select('name, course_overview(name)')
      .order('id')
      .order('id', { referencedTable: 'course_overview' })
    assertOk(result, [
      { name: 'Ana Pérez', course_overview: [{ name: 'Matemática' }, { name: 'Lenguaje' }] },
      { name: 'Beto Soto', course_overview: [{ name: 'Historia' }] },
      { name: 'Carla Díaz', course_overview: [] },
    ])
  })
})

describe('data representations (a domain read through its cast functions)', () => {
  // houses.colour is an integer domain with implicit casts to json and from text (see
  // school.sql): PostgREST selects it through colour_json and reads filter values with
  // colour(text). Red is 16711680, blue 255, green's colour is null.
  const houses = [
    { id: 1, name: 'Alianza Roja', colour: '#FF0000' },
    { id: 2, name: 'Alianza Azul', colour: '#0000FF' },
    { id: 3, name: 'Alianza Verde', colour: null },
  ]

  test('a selected column, *, the implicit select and CSV show the json representation', async () => {
    assertOk(await anon().from('houses').select('id, name, colour').order('id'), houses)
    assertOk(await anon().from('houses').select('*').order('id'), houses)
    assertOk(await anon().from('houses').select().order('id'), houses)
    assertOk(await anon().from('houses').select('id, colour').eq('id', 1).csv(), 'id,colour\n1,"""#FF0000"""')
  })

  test('under an alias, with a cast on top, and inside an embedded resource', async () => {
    assertOk(await anon().from('houses').select('tono:colour, texto:colour::text').eq('id', 2), [
      { tono: '#0000FF', texto: '"#0000FF"' },
    ])
    assertOk(await anon().from('house_points').select('points, houses(name, colour)').order('id'), [
      { points: 10, houses: { name: 'Alianza Roja', colour: '#FF0000' } },
      { points: 7, houses: { name: 'Alianza Azul', colour: '#0000FF' } },
    ])
    assertOk(await anon().from('house_points').select('reason, houses(*)').eq('id', 2), [
      { reason: 'Coro', houses: houses[1] },
    ])
  })

  test('filter values go through the text parser, in lists too; order uses the stored integer', async () => {
    assertOk(await anon().from('houses').select('id').eq('colour', 'FF0000'), [{ id: 1 }])
    assertOk(await anon().from('houses').select('id').eq('colour', '#ff0000'), [{ id: 1 }])
    assertOk(await anon().from('houses').select('id').in('colour', ['0000FF', 'FF0000']).order('id'), [{ id: 1 }, { id: 2 }])
    assertOk(await anon().from('houses').select('id').not('colour', 'in', '(0000FF)').order('id'), [{ id: 1 }])
    assertOk(await anon().from('houses').select('id').gt('colour', '0000FF'), [{ id: 1 }])
    assertOk(await anon().from('houses').select('id').order('colour', { nullsFirst: true }), [{ id: 3 }, { id: 2 }, { id: 1 }])
    assertOk(await anon().from('house_points').select('id, houses!inner(id)').eq('houses.colour', '0000FF'), [
      { id: 2, houses: { id: 2 } },
    ])
  })

  test('a value the parser refuses is its error', async () => {
    assertError(
      await anon().from('houses').select('id').eq('colour', 'rojo'),
      { code: '22P02', details: null, hint: null, message: '"r" is not a valid hexadecimal digit' },
      400,
    )
  })
})

describe('OpenAPI', () => {
  async function openApi(supabase) {
    const response = await supabase.schema(FIXTURE_SCHEMA).fetch(`${gateway.url}/rest/v1/`)
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/openapi+json; charset=utf-8')
    return response.json()
  }

  test('swagger 2.0 document with the schema comment as title', async () => {
    const document = await openApi(anon())
    assert.equal(document.swagger, '2.0')
    assert.equal(document.info.title, 'Escuela de prueba de rest/v1')
    assert.equal(document.info.description, '')
    assert.deepEqual(document.consumes, [
      'application/json',
      'application/vnd.pgrst.object+json;nulls=stripped',
      'application/vnd.pgrst.object+json',
      'text/csv',
    ])
  })

  test('host and basePath point at the public API (PostgREST with openapi-server-proxy-uri = API_EXTERNAL_URL/rest/v1)', async () => {
    const document = await openApi(anon())
    assert.equal(document.basePath, '/rest/v1')
    assert.equal(document.host, `localhost:${new URL(gateway.url).port}`)
    assert.deepEqual(document.schemes, ['http'])
  })

  test('anon gets paths only for what it can read (no grades_private)', async () => {
    const document = await openApi(anon())
    const relationPaths = Object.keys(document.paths).filter((path) => !path.startsWith('/rpc/'))
    assert.deepEqual(relationPaths.sort(), [
      '/',
      '/arrival_log',
      '/arrivals',
      '/closed_arrivals',
      '/course_overview',
      '/course_search',
      '/courses',
      '/enrollments',
      '/house_points',
      '/houses',
      '/lesson_notes',
      '/logged_arrivals',
      '/my_courses',
      '/numbers',
      '/room_bookings',
      '/rooms',
      '/schools',
      '/screened_arrivals',
      '/staff_directory',
      '/student_clubs',
      '/students',
      '/substitutions',
      '/teachers',
      '/typed_arrivals',
    ])
    assert.ok(!('grades_private' in document.definitions))
  })

  test('display_name(students) is not an /rpc path (one unnamed composite argument: not callable), nor are trigger functions', async () => {
    const document = await openApi(anon())
    assert.deepEqual(Object.keys(document.paths).filter((path) => path.startsWith('/rpc/')).sort(), [
      '/rpc/add_grades',
      '/rpc/always_conflicts',
      '/rpc/archive_course',
      '/rpc/arrival_tag',
      '/rpc/bad_status',
      '/rpc/byte_length',
      '/rpc/check_grade',
      '/rpc/check_request',
      '/rpc/close_course',
      '/rpc/colour',
      '/rpc/course_count',
      '/rpc/course_page',
      '/rpc/courses_by_level',
      '/rpc/courses_of',
      '/rpc/courses_of_domain',
      '/rpc/created_note',
      '/rpc/echo_json',
      '/rpc/enroll',
      '/rpc/grade_scale',
      '/rpc/greet',
      '/rpc/nap',
      '/rpc/pick',
      '/rpc/remember_session',
      '/rpc/rename_school',
      '/rpc/school_logo',
      '/rpc/settle_after_conflicts',
      '/rpc/shout',
      '/rpc/slow_report',
      '/rpc/slug',
      '/rpc/spend_stars',
      '/rpc/summarize',
      '/rpc/tag_list',
      '/rpc/whoami',
    ])
  })

  test('an authenticated user also gets grades_private', async () => {
    const document = await openApi(asAna())
    assert.ok('/grades_private' in document.paths)
  })

  test('paths: writable tables get post/patch/delete, the join view only get', async () => {
    const document = await openApi(anon())
    assert.deepEqual(Object.keys(document.paths['/courses']).sort(), ['delete', 'get', 'patch', 'post'])
    assert.deepEqual(Object.keys(document.paths['/course_overview']), ['get'])
    assert.equal(document.paths['/schools'].get.summary, 'Establecimientos')
    assert.deepEqual(
      document.paths['/courses'].get.parameters.map((parameter) => parameter.$ref),
      [
        ...['id', 'teacher_id', 'name', 'level', 'tags', 'settings', 'hours', 'summary'].map(
          (column) => `#/parameters/rowFilter.courses.${column}`,
        ),
        '#/parameters/select',
        '#/parameters/order',
        '#/parameters/range',
        '#/parameters/rangeUnit',
        '#/parameters/offset',
        '#/parameters/limit',
        '#/parameters/preferCount',
      ],
    )
  })

  test('definitions: types, formats, enums, keys and required columns', async () => {
    const document = await openApi(anon())
    const courses = document.definitions.courses
    assert.equal(courses.type, 'object')
    assert.deepEqual(courses.required, ['id', 'teacher_id', 'name', 'level', 'tags', 'settings'])
    assert.deepEqual(courses.properties.id, {
      description: 'Note:\nThis is a Primary Key.<pk/>',
      format: 'int32',
      type: 'integer',
    })
    assert.deepEqual(courses.properties.teacher_id, {
      description: "Note:\nThis is a Foreign Key to `teachers.id`.<fk table='teachers' column='id'/>",
      format: 'int32',
      type: 'integer',
    })
    assert.deepEqual(courses.properties.level, {
      enum: ['1° básico', '2° básico', '1° medio'],
      format: 'fixture.level',
      type: 'string',
    })
    assert.deepEqual(courses.properties.tags, { format: 'text[]', items: { type: 'string' }, type: 'array' })
    assert.deepEqual(courses.properties.settings, { format: 'jsonb' })
    assert.equal(document.definitions.schools.description, 'Establecimientos')
  })

  test('a foreign key note names the table even when a view sorted before it exposes the same key', async () => {
    const document = await openApi(anon())
    // staff_directory selects teachers.id: PostgREST sorts relationships to tables first.
    const note = "Note:\nThis is a Foreign Key to `teachers.id`.<fk table='teachers' column='id'/>"
    assert.equal(document.definitions.courses.properties.teacher_id.description, note)
    assert.equal(document.definitions.teachers.properties.mentor_id.description, note)
    assert.equal(document.definitions.course_overview.properties.teacher_id.description, note)
  })

  test('rpc body schema: array items, json without a type, enum named as the search path prints it', async () => {
    const document = await openApi(anon())
    const [args, prefer] = document.paths['/rpc/courses_by_level'].post.parameters
    assert.deepEqual(prefer, { $ref: '#/parameters/preferParams' })
    assert.deepEqual(args, {
      in: 'body',
      name: 'args',
      required: true,
      schema: {
        type: 'object',
        properties: {
          level: { format: 'level', type: 'string' },
          teachers: { format: 'integer[]', items: { type: 'integer' }, type: 'array' },
          notes: { format: 'json[]', items: {}, type: 'array' },
          options: { format: 'jsonb' },
          term: { format: 'fixture_private.term', type: 'string' },
        },
        required: ['level', 'teachers'],
      },
    })
  })

  test('rpc get parameters: query strings, the enum unqualified, a type off the search path qualified', async () => {
    const document = await openApi(anon())
    assert.deepEqual(document.paths['/rpc/courses_by_level'].get.parameters, [
      { format: 'level', in: 'query', name: 'level', required: true, type: 'string' },
      { format: 'integer[]', in: 'query', name: 'teachers', required: true, type: 'string' },
      { format: 'json[]', in: 'query', name: 'notes', required: false, type: 'string' },
      { format: 'jsonb', in: 'query', name: 'options', required: false, type: 'string' },
      // Off the search path: qualified, and printed without USAGE on its schema.
      { format: 'fixture_private.term', in: 'query', name: 'term', required: false, type: 'string' },
    ])
  })

  test('rpc with no required argument: the body schema has no required key (nor empty properties)', async () => {
    const document = await openApi(anon())
    assert.deepEqual(document.paths['/rpc/add_grades'].post.parameters[0].schema.required, ['a'])
    assert.deepEqual(document.paths['/rpc/whoami'].post.parameters[0].schema, { type: 'object' })
    assert.deepEqual(document.paths['/rpc/course_count'].post.parameters[0].schema, {
      type: 'object',
      properties: { teacher: { format: 'int32', type: 'integer' } },
    })
  })

  test('a VARIADIC argument is a multi collection in the get path item', async () => {
    const document = await openApi(anon())
    assert.deepEqual(document.paths['/rpc/tag_list'].get.parameters, [
      {
        collectionFormat: 'multi',
        in: 'query',
        items: { format: 'text', type: 'string' },
        name: 'tags',
        required: true,
        type: 'array',
      },
    ])
  })

  test('with one schema exposed there is no Content-Profile', async () => {
    const response = await anon().schema(FIXTURE_SCHEMA).fetch(`${gateway.url}/rest/v1/`)
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-profile'), null)
    await response.body?.cancel()
  })
})

describe('OpenAPI with several schemas exposed (PGRST_DB_SCHEMAS=fixture,public)', () => {
  let several
  before(async () => {
    several = await spawnFixtureGateway({ PGRST_DB_SCHEMAS: `${FIXTURE_SCHEMA},public` })
  })
  after(async () => {
    await several?.stop()
  })

  async function root(headers) {
    const response = await anonClient(several).schema(FIXTURE_SCHEMA).fetch(`${several.url}/rest/v1/`, { headers })
    assert.equal(response.status, 200)
    assert.equal(response.headers.get('content-type'), 'application/openapi+json; charset=utf-8')
    return response
  }

  test('the document of the default schema carries Content-Profile: fixture', async () => {
    const response = await root({})
    assert.equal(response.headers.get('content-profile'), FIXTURE_SCHEMA)
    assert.ok('/staff_directory' in (await response.json()).paths)
  })

  test('Accept-Profile picks the schema the document and Content-Profile name', async () => {
    const response = await root({ 'Accept-Profile': 'public' })
    assert.equal(response.headers.get('content-profile'), 'public')
    // The public schema's document: none of the fixture's relations.
    assert.ok(!('/staff_directory' in (await response.json()).paths))
  })
})

describe('aggregates (PGRST_DB_AGGREGATES_ENABLED=true)', () => {
  let aggregating
  before(async () => {
    aggregating = await spawnFixtureGateway({ PGRST_DB_AGGREGATES_ENABLED: 'true' })
  })
  after(async () => {
    await aggregating?.stop()
  })

  test('grouped by the other selected columns, named after the function', async () => {
    const courses = () => anonClient(aggregating).from('courses')
    assertOk(await courses().select('teacher_id, id.count()').order('teacher_id'), [
      { teacher_id: 1, count: 2 },
      { teacher_id: 2, count: 1 },
    ])
    assertOk(await courses().select('total:id.count()'), [{ total: 3 }])
  })

  test('over a JSON path the aggregate keeps its function\'s name, not the last key\'s', async () => {
    const courses = () => anonClient(aggregating).from('courses')
    assertOk(await courses().select('settings->weekly->>hours::int.sum()'), [{ sum: 6 }])
    assertOk(await courses().select('settings->>room.count()'), [{ count: 2 }])
    assertOk(await courses().select('horas:settings->weekly->>hours::int.sum()'), [{ horas: 6 }])
  })
})
