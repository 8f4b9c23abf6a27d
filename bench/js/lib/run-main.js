'use strict';
// How bench/js/run.js and models.js end: main() resolves to its problems (what is broken: speed never is), said on
// stderr as `NAME: BROKEN (n):` one a line, with exit status 1; a throw is said as `NAME: BROKEN: stack`, exit 1.
function runMain(name, main) {
  main().then(
    (problems) => {
      if (problems.length) {
        process.stderr.write(`${name}: BROKEN (${problems.length}):\n  ` + problems.join('\n  ') + '\n');
        process.exitCode = 1;
      }
    },
    (e) => {
      console.error(`${name}: BROKEN: ${(e && e.stack) || e}`);
      process.exit(1);
    },
  );
}

module.exports = { runMain };
