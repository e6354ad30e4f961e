// Starts Swagger UI on the contract this mock serves. "Try it out" calls
// this server: the contract's server URL is "/", so requests go to the
// origin of the page. A file, not an inline script, so the page's CSP can
// stay script-src 'self'.
'use strict';
window.addEventListener('load', () => {
  const devKey = (document.querySelector('meta[name="mock-dev-key"]') || {}).content || '';
  const ui = window.SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null, // no call to validator.swagger.io
    tryItOutEnabled: false,
    displayRequestDuration: true,
    // With the generated development key (a local mock), offer it at once.
    onComplete: () => { if (devKey) ui.preauthorizeApiKey('bearerAuth', devKey); },
  });
});
