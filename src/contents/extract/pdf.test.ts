import { expect, test } from "bun:test";
import { ServiceError } from "../../errors.ts";
import { extractPdf } from "./pdf.ts";

test("a PDF the library cannot read is our message, never the library's", async () => {
  const broken = new TextEncoder().encode("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF");
  const error = await extractPdf(broken).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ServiceError);
  expect((error as ServiceError).code).toBe("pdf_unreadable");
  expect((error as ServiceError).message).toBe("the PDF could not be read");
  // The library's own words ride along for the log, never in the message.
  expect((error as ServiceError).cause).toBeInstanceOf(Error);
});
