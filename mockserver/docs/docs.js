// Starts Swagger UI on the contract as this mock serves it
// (/docs/openapi.json): its server is this mock's address, so "Try it out"
// calls this server, and its example ids are records of the first key's
// account (the development key's with `make run`). A file, not an inline
// script, so the page's CSP can stay script-src 'self'.
'use strict';
window.addEventListener('load', () => {
  const devKey = (document.querySelector('meta[name="mock-dev-key"]') || {}).content || '';
  const ui = window.SwaggerUIBundle({
    url: '/docs/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null, // no call to validator.swagger.io
    tryItOutEnabled: false,
    displayRequestDuration: true,
    // With the generated development key (a local mock), offer it at once.
    onComplete: () => { if (devKey) ui.preauthorizeApiKey('bearerAuth', devKey); },
  });
});
