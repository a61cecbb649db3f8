// The OpenAPI 3 document of sluicerestd (src/restd/openapi.json, compiled in).
#pragma once

namespace sluice {

const char* OpenApiDocument();

}  // namespace sluice
