// What esbuild's text loader gives for the files web/ imports as text (web/build.mjs: .py, .html, .css).
declare module '*.py' { const text: string; export default text; }
declare module '*.html' { const text: string; export default text; }
declare module '*.css' { const text: string; export default text; }
