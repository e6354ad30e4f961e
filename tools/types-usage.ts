// Compiled by `make types` against the types openapi-typescript generates
// from spec/openapi.yaml: proof that a frontend can type its client with them.
import type { components, paths } from "../build/api";

type Model = components["schemas"]["Model"];
type Envelope<T> = { status: "success"; data: T };

export function modelName(env: Envelope<Model>): string {
  return env.data.name;
}

export type ListModels = paths["/api/v1/user/model"]["get"]["responses"][200]["content"]["application/json"];
export type Chunk = components["schemas"]["InferenceChunk"];
export type Status = components["schemas"]["EvaluationStatus"];

export const statuses: Status[] = ["pending", "running", "completed", "failed"];

export function tokenText(chunks: Chunk[]): string {
  return chunks.filter((c) => c.type === "token").map((c) => c.content ?? "").join("");
}

// The seed's §4.1 table makes `model_name` and `dataset_id` (a string)
// required; these assertions stop compiling if the generated type makes
// either optional or changes its type.
type ModelCreate = components["schemas"]["ModelCreateRequest"];
type IsRequired<T, K extends keyof T> = {} extends Pick<T, K> ? false : true;
type Assert<T extends true> = T;
export type ModelNameRequired = Assert<IsRequired<ModelCreate, "model_name">>;
export type DatasetIdRequired = Assert<IsRequired<ModelCreate, "dataset_id">>;
export type DatasetIdIsString = Assert<ModelCreate["dataset_id"] extends string ? true : false>;

export const declaredCreate: ModelCreate = { model_name: "Support assistant", dataset_id: "12" };
