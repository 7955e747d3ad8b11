// Validates an OpenAPI document with @apidevtools/swagger-parser (schema + $ref resolution):
//   node validate.mjs openapi.json
// Exit 0 valid (prints a summary line), 1 invalid (prints why), 2 usage.
import SwaggerParser from "@apidevtools/swagger-parser";

const file = process.argv[2];
if (!file) {
  console.error("usage: node validate.mjs openapi.json");
  process.exit(2);
}
try {
  const api = await SwaggerParser.validate(file);
  const ops = Object.values(api.paths).reduce((n, p) => n + Object.keys(p).length, 0);
  console.log(`valid OpenAPI ${api.openapi}: ${Object.keys(api.paths).length} paths, ${ops} operations`);
} catch (e) {
  console.error(`invalid: ${e.message}`);
  process.exit(1);
}
