// Request bodies of the REST API (POST /job/submit's "job", POST /job/{id}): any JSON,
// or none, turned into command words (restd/job_desc.h). Nothing may crash or throw.
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "restd/job_desc.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  const nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded()) return 0;
  (void)sluice::SbatchCallFor(doc);
  (void)sluice::ScontrolCallsFor(7, doc);
  return 0;
}
