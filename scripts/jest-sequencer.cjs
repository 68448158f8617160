// The order of the test files: jest's own (the slowest and the last failed first), except that the
// files that need nothing the install brings come before those that do (scripts/jest-install-gate.cjs
// says which and why: under npm test, the first run while the install still goes on).
"use strict";
const Sequencer = require("@jest/test-sequencer").default;
const { needsInstall } = require("./jest-install-gate.cjs");

class InstallLastSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [...sorted.filter((test) => !needsInstall(test.path)), ...sorted.filter((test) => needsInstall(test.path))];
  }
}

module.exports = InstallLastSequencer;
