/** One value of a form field: text, or a file part (a Blob; a File keeps its name). */
export type FormValue = string | number | boolean | Blob;

/** A multipart/form-data body as the shipped types give it: a field per key, a list for a repeated one. */
export type FormBody = { [field: string]: FormValue | readonly FormValue[] | null | undefined };

/**
 * The body as FormData: one part per field, one per item of a list (the
 * contract's `files`), none for null or undefined. Give it to openapi-fetch
 * as the call's `bodySerializer`:
 *
 *   api.POST("/api/v1/user/dataset", { body: { dataset_name: "Handbook", files: [file] }, bodySerializer: formData })
 *
 * openapi-fetch then sends the form with the browser's own multipart
 * Content-Type (and its boundary).
 */
export declare function formData(body: FormBody): FormData;
