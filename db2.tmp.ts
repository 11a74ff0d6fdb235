import { PGlite } from "@electric-sql/pglite";
for (let i = 0; i < 3; i++) { const t0 = performance.now(); const p = new PGlite(); await p.waitReady; console.log("new", (performance.now()-t0).toFixed(0)); await p.query("create table x(a int)"); 
 const t1 = performance.now(); const c = await p.clone(); await c.query("select * from x"); console.log("clone", (performance.now()-t1).toFixed(0));
 const t2 = performance.now(); const dump = await p.dumpDataDir("none"); const q = new PGlite({loadDataDir: dump}); await q.waitReady; await q.query("select * from x"); console.log("load", (performance.now()-t2).toFixed(0), dump.size);
}
