// The slurmrestd v0.0.38 objects no command prints as JSON: partitions, reservations,
// pings, and the error list every failed request answers with.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "client.pb.h"

namespace sluice {

struct RestError {
  std::string message;
  int error_number = -1;  // Slurm's errno for the message (slurm_errno.h), -1 when none fits
};

// {"meta", "errors": [{"error": ..., "error_number": ...}, ...]}
nlohmann::json ErrorsJson(const std::vector<RestError>& errors);
// Slurm's errno for a message Sluice shares with Slurm ("Invalid job id specified" ->
// 2017, "Access/permission denied" -> 2002, ...), else -1.
int SlurmErrno(const std::string& message);

// {"meta", "errors": [], "partitions": [...]}; `nodes` gives the partitions' CPU counts.
nlohmann::json PartitionsJson(const GetPartitionsReply& partitions, const GetNodesReply& nodes);
// {"meta", "errors": [], "reservations": [...]}
nlohmann::json ReservationsJson(const ReservationReply& reply);
// {"meta", "errors": [], "pings": [{"hostname", "ping": "UP"|"DOWN", "status", "mode"}]}
nlohmann::json PingsJson(const std::string& host, bool up);

}  // namespace sluice
