// scontrol's reservation commands (Slurm 22.05 wording):
//   create reservation Key=Value...  -> "Reservation created: NAME"
//   update ReservationName=NAME Key=Value...  -> "Reservation updated."
//   delete ReservationName=NAME | reservation NAME  -> silent
//   show reservation [NAME]  -> FormatReservationRecord per reservation, or
//                               "No reservations in the system"
// Errors go to stderr with exit 1 ("Error creating the reservation: <why>", ...).
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"
#include "client.pb.h"

namespace sluice {

int ScontrolReservation(CliEnv& env, ReservationAction action, const std::vector<std::string>& args,
                        bool oneliner, bool quiet);

}  // namespace sluice
