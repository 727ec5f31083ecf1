-- profiles: each user owns one; the phone is stored encrypted and only its owner (or an
-- admin) gets it back.
BEGIN;
SET LOCAL search_path = public, tests, extensions;
SELECT plan(27);
SELECT tests.create_cast();

SELECT tests.as_user(tests.teacher_a());
SELECT is_empty($$SELECT 1 FROM profiles WHERE user_id = tests.teacher_a()$$,
  'no profile before onboarding (maybeSingle gets null)');
SELECT lives_ok($$INSERT INTO profiles (first_name, last_name, school_rbd) VALUES ('  Ana ', 'Pérez', 8485)$$,
  'a teacher creates her profile');
SELECT results_eq($$SELECT user_id, first_name, is_complete FROM profiles$$,
  $$VALUES (tests.teacher_a(), 'Ana', false)$$,
  'the profile is hers, trimmed, and incomplete without how_found_us');
SELECT lives_ok($$UPDATE profiles SET how_found_us = 'Un colega' WHERE user_id = tests.teacher_a()$$,
  'she completes it');
SELECT is((SELECT is_complete FROM profiles), true, 'first_name, last_name and how_found_us make it complete');
SELECT lives_ok($$UPDATE profiles SET how_found_us = '   ' WHERE user_id = tests.teacher_a()$$,
  'a blank answer is accepted');
SELECT is((SELECT how_found_us FROM profiles), NULL, 'and stored as null');
SELECT throws_ok($$INSERT INTO profiles (user_id, first_name) VALUES (tests.teacher_b(), 'Intruso')$$, '42501', NULL,
  'a teacher cannot create someone else''s profile');
SELECT throws_ok($$UPDATE profiles SET encrypted_phone = 'AAAA' WHERE user_id = tests.teacher_a()$$, '42501', NULL,
  'the encrypted phone cannot be written directly');
SELECT throws_ok($$SELECT set_phone('12345')$$, '22023', 'El teléfono no es un número chileno válido',
  'set_phone refuses numbers that are not Chilean');
SELECT lives_ok($$SELECT set_phone('+56 9 8765 4321')$$, 'set_phone stores her phone');
SELECT ok((SELECT encrypted_phone !~ '8765' AND length(encrypted_phone) > 40 FROM profiles),
  'the stored phone is ciphertext');
SELECT is(decrypt_phone((SELECT encrypted_phone FROM profiles)), '+56987654321',
  'decrypt_phone gives her phone back, normalised');
SELECT lives_ok($$SELECT set_phone('9 1111 2222')$$, 'the phone can be changed without +56');
SELECT is(decrypt_phone((SELECT encrypted_phone FROM profiles)), '+56911112222', 'the new phone is stored');
CREATE TEMP TABLE ana_cipher ON COMMIT DROP AS SELECT encrypted_phone FROM profiles;
GRANT SELECT ON ana_cipher TO PUBLIC;

SELECT tests.as_user(tests.teacher_b());
SELECT is_empty('SELECT 1 FROM profiles', 'another teacher cannot read her profile');
SELECT is_empty($$UPDATE profiles SET first_name = 'X' RETURNING 1$$, 'nor change it');
SELECT throws_ok($$DELETE FROM profiles$$, '42501', NULL, 'nor delete it (profiles go with their user)');
SELECT throws_ok($$SELECT decrypt_phone((SELECT encrypted_phone FROM ana_cipher))$$, '42501', NULL,
  'another teacher cannot decrypt her phone even holding the ciphertext');
SELECT lives_ok($$INSERT INTO profiles (first_name, last_name, how_found_us, school_rbd) VALUES ('Beto', 'Soto', 'Instagram', 1)
                  ON CONFLICT (user_id) DO UPDATE SET first_name = EXCLUDED.first_name$$,
  'another teacher upserts his own profile');

SELECT tests.as_user(tests.admin());
SELECT is((SELECT count(*)::int FROM profiles), 2, 'an admin reads every profile');
SELECT is(decrypt_phone((SELECT encrypted_phone FROM ana_cipher)), '+56911112222', 'an admin can decrypt a phone');

SELECT tests.as_user(tests.directivo());
SELECT results_eq('SELECT user_id FROM profiles', ARRAY[tests.teacher_a()],
  'a directivo reads the profiles of her school''s teachers only');
SELECT throws_ok($$SELECT decrypt_phone((SELECT encrypted_phone FROM ana_cipher))$$, '42501', NULL,
  'a directivo cannot decrypt phones');

SELECT tests.as_anon();
SELECT is_empty('SELECT 1 FROM profiles', 'anon reads no profiles');
SELECT throws_ok($$INSERT INTO profiles (user_id, first_name) VALUES (tests.teacher_a(), 'X')$$, '42501', NULL,
  'anon cannot create profiles');

SELECT tests.reset_role();
SELECT throws_ok($$INSERT INTO profiles (user_id, first_name) VALUES ('00000000-0000-4000-8000-000000000000', 'Nadie')$$,
  '23503', NULL, 'a profile needs a user');

SELECT * FROM finish();
ROLLBACK;
