/** `application/json; charset=utf-8` → `application/json`: what a Content-Type header says a body is, for the guard and the routes that read a body of their own type. */
export const mediaType = (contentType: string | null | undefined) => (contentType ?? "").split(";")[0].trim().toLowerCase();
