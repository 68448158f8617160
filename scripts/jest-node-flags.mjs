// The flags of the Node processes that run jest in npm test (scripts/test.mjs, the suite on the npm
// Node; scripts/test-runtimes.mjs, the suite on each Node of the matrix).
//
// V8's young generation: jest's processes allocate fast (a transform, a module registry and an
// environment per file; the hostile tests' million-request batch), and semi-spaces of 32 MiB rather
// than V8's default make fewer scavenges. One Node's suite took 13% less CPU for the same tests
// (Node 22, both halves: 219 -> 191 CPU-seconds, 1,379 + 1,677 passed either way). They are the
// flags of jest's own process (and of its workers, which inherit them): the tests' children, the
// servers and CLIs they start, run with none, as a user's would.
export const JEST_NODE_FLAGS = ["--max-semi-space-size=32"];
