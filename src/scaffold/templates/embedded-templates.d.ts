// Provided by the esbuild plugin in esbuild.mjs: every file under templates/, by relative path.
declare module 'agentrl:templates' {
  const files: Readonly<Record<string, string>>;
  export default files;
}
