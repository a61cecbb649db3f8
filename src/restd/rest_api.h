// RestApi: the paths of slurmrestd's openapi/slurm/v0.0.38 and openapi/slurmdb/v0.0.38 as
// Slurm 22.05 serves them, answered by the commands that print the same JSON or do the
// same thing, run in this process against the controller as the request's user:
//   GET    /slurm/v0.0.38/jobs | /job/{id}             squeue --json [-j id]
//   POST   /slurm/v0.0.38/job/submit                   sbatch (job_desc.h), script on stdin
//   POST   /slurm/v0.0.38/job/{id}                     scontrol update / hold / release
//   DELETE /slurm/v0.0.38/job/{id}[?signal=SIG]        scancel [--signal=SIG]
//   GET    /slurm/v0.0.38/nodes | /node/{name}         sinfo --json | scontrol show node --json
//   GET    /slurm/v0.0.38/partitions | /partition/{p}  rest_json.h
//   GET    /slurm/v0.0.38/reservations | /reservation/{r}, /diag (sdiag --json), /ping,
//          /licenses
//   GET    /slurmdb/v0.0.38/jobs | /job/{id}           sacct --json
//   GET    /slurmdb/v0.0.38/accounts | associations | qos | users [/{name}]: sacctmgr --json
//   GET    /openapi, /openapi.json, /openapi/v3        the OpenAPI document (no token needed)
// Every answer is JSON with "meta" and "errors". A command's error becomes an error entry
// with Slurm's errno; the HTTP status says what kind: 400 a malformed body, unknown field
// or query parameter, or a value the command refused; 401 no or bad token; 403 denied;
// 404 unknown path or no such job/node/partition/reservation; 405 a method the path does
// not take; 503 controller unreachable; 500 anything else.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "client/api.h"
#include "common/clock.h"

namespace sluice {

struct RestRequest {
  std::string method;  // GET, POST, DELETE, ...
  std::string path;
  std::map<std::string, std::string> query;
  std::string body;
};

struct RestResponse {
  int status = 200;
  std::string body;
};

// Who the request acts as (the controller checks the token; this only shapes what the
// commands ask for, e.g. sacct's own-jobs default).
struct RestUser {
  uint32_t uid = 65534;
  std::string name;
};

class RestApi {
 public:
  // `conf_path`: the sluice.conf the commands read; `openapi`: the document served.
  RestApi(std::string conf_path, const Clock* clock, std::string openapi);

  // Whether `path` is served without a token (the OpenAPI document).
  static bool IsPublic(const std::string& path);

  RestResponse Handle(const RestRequest& req, ClientApiInterface* api, const RestUser& user) const;

 private:
  struct Call;  // one request's command runs (rest_api.cc)
  std::string conf_path_;
  const Clock* clock_;
  std::string openapi_;
};

}  // namespace sluice
