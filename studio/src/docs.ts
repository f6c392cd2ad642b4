/**
 * /docs: the OpenAPI document of this server in Swagger UI (swagger-ui-dist, served by Platen):
 * every endpoint with its schemas, and "Try it out" against this server with the API key given
 * under Authorize (kept in memory only). No request leaves the server's origin: the online spec
 * validator is off.
 */
interface SwaggerWindow {
  SwaggerUIBundle(options: Record<string, unknown>): unknown;
}

(window as unknown as SwaggerWindow).SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#ui',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: false,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  docExpansion: 'list',
  tryItOutEnabled: false,
});
