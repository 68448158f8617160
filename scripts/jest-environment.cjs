// The suite's environment: jest's Node environment, which under npm test first waits for the end of
// the install of the runtimes, Chromium and nats-server before a file that needs them
// (scripts/jest-install-gate.cjs says which, and how npm test says that the install has ended).
"use strict";
const { existsSync, readFileSync, watch } = require("node:fs");
const { dirname } = require("node:path");
const { TestEnvironment } = require("jest-environment-node");
const { needsInstall } = require("./jest-install-gate.cjs");

/** Resolves once `file` exists (watching its directory, so that no write is missed), to its text. */
const written = (file) =>
  new Promise((resolve, reject) => {
    const watcher = watch(dirname(file), () => check());
    watcher.once("error", reject);
    // After the watcher is set: a file written before it is seen here, one written after by it.
    const check = () => {
      if (!existsSync(file)) return;
      const text = readFileSync(file, "utf8");
      // Written whole by npm test (a rename into place), but read only once it says something.
      if (text === "") return;
      watcher.close();
      resolve(text.trim());
    };
    check();
  });

class InstallAwareEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    await super.setup();
    const done = process.env.RPCSERVER_INSTALL_DONE;
    if (done === undefined || done === "" || !needsInstall(this.testPath)) return;
    const outcome = await written(done);
    if (outcome !== "ok") throw new Error(`the install of the runtimes, Chromium and nats-server failed: ${outcome}`);
  }
}

module.exports = InstallAwareEnvironment;
