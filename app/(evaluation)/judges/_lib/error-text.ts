/**
 * A tRPC error as a sentence for a form: input the server's schema refused is named field by field (its message
 * would otherwise be the raw list of issues); a service's refusal is shown as the service worded it.
 */
export function errorText(error: unknown): string {
  const data = (error as { data?: { zodError?: { formErrors?: string[]; fieldErrors?: Record<string, string[] | undefined> } | null } } | null)?.data;
  const zod = data?.zodError;
  if (zod) {
    const parts = [
      ...(zod.formErrors ?? []),
      ...Object.entries(zod.fieldErrors ?? {}).flatMap(([field, messages]) => (messages ?? []).map((m) => `${field}: ${m}`)),
    ];
    if (parts.length) return `Please check the form: ${parts.join("; ")}`;
  }
  return error instanceof Error ? error.message : String(error);
}
