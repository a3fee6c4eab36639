// sql.js ships no types. Its inline build (the wasm inside the JS file) is all tests load:
// each test names the Database shape it uses.
declare module 'sql.js/dist/sql-wasm-inline.js' {
  function initSqlJs(): Promise<unknown>;
  export = initSqlJs;
}
