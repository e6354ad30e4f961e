// The types of the API (generated from the contract, spec/openapi.yaml, by
// openapi-typescript) and of the mock's own /admin API (written by hand,
// checked against the mock's real answers).
//
//   import type { paths, components, JournalEntry, Override } from "@contractkit/mock/types";
export * from "./api.js";
export * from "./admin.js";
