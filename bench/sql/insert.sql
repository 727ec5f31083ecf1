\set amount random(0, 9000)
INSERT INTO public.bench_writes (owner, title, amount) VALUES ('8d3f6c0e-52a4-4c55-9a53-1f0e9d6b7a21', 'bench', :amount);
