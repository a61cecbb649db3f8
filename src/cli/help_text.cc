#include "cli/help_text.h"

#include <array>

namespace sluice {
namespace {

struct Texts {
  std::string_view command;
  std::string_view usage;
  std::string_view help;
};

constexpr char kSacctUsage[] =
    "Usage: sacct [-aDlPXn] [-A accounts] [-E end_time] [-j job_list] [-o fields]\n"
    "             [-s states] [-S start_time] [-u users] [--json]\n"
    "Use --help for help\n";

constexpr char kSacctHelp[] =
    "sacct [<OPTION>]\n"
    "    Valid <OPTION> values are:\n"
    "     -a, --allusers:\n"
    "                   Jobs of every user, not only the caller's.\n"
    "     -A, --accounts:\n"
    "                   Only jobs charged to these comma-separated accounts.\n"
    "     -b, --brief:\n"
    "                   Print JobID, State and ExitCode only.\n"
    "     -D, --duplicates:\n"
    "                   Every run of a requeued job, not only its latest.\n"
    "     -E, --endtime:\n"
    "                   Only jobs active before this time (default: now).\n"
    "     -h, --help:   Print this text.\n"
    "     -j, --jobs:\n"
    "                   Only these jobs (id, id.step, id_task), comma-separated;\n"
    "                   may be given more than once.\n"
    "     -l, --long:   Print a long list of fields.\n"
    "     -L, --allclusters, -M, --clusters:\n"
    "                   Accepted; Sluice accounts for one cluster.\n"
    "     -n, --noheader:\n"
    "                   No header line.\n"
    "     -o, --format:\n"
    "                   Fields to print, comma-separated, each with an optional %width.\n"
    "     -p, --parsable:\n"
    "                   Fields delimited by '|', with a trailing '|'.\n"
    "     -P, --parsable2:\n"
    "                   Fields delimited by '|', without a trailing '|'.\n"
    "     -s, --state:\n"
    "                   Only jobs that were in these states (PD,R,CD,F,CA,TO,NF,OOM,...).\n"
    "     -S, --starttime:\n"
    "                   Only jobs active after this time (default: midnight today,\n"
    "                   or the epoch when -j is given).\n"
    "     -u, --user, --uid:\n"
    "                   Only jobs of these users (names or uids).\n"
    "     -V, --version:\n"
    "                   Print the version.\n"
    "     -X, --allocations:\n"
    "                   One line per job, without its steps.\n"
    "         --json:   Print the records as JSON.\n"
    "         --usage:  Print a short synopsis.\n"
    "\n"
    "     valid start/end time formats are...\n"
    "                   HH:MM[:SS]            (today)\n"
    "                   MMDD[YY], MM/DD[/YY]\n"
    "                   YYYY-MM-DD[THH:MM[:SS]]\n"
    "                   seconds since the epoch\n"
    "                   today, midnight, now[{+|-}count[seconds|minutes|hours|days|weeks]]\n";

constexpr char kSacctmgrHelp[] =
    "sacctmgr [<OPTION>] [<COMMAND>]\n"
    "    Valid <OPTION> values are:\n"
    "     -h or --help: print this text\n"
    "     -i or --immediate: commit changes without asking\n"
    "     -n or --noheader: no header line\n"
    "     -p or --parsable: fields delimited by '|', with a trailing '|'\n"
    "     -P or --parsable2: fields delimited by '|', without a trailing '|'\n"
    "     -Q or --quiet: print no messages other than errors\n"
    "     -r or --readonly: refuse every command that changes something\n"
    "     -s or --associations: list the associations with users and accounts\n"
    "     -V or --version: print the version\n"
    "\n"
    "    Valid <COMMAND> values are:\n"
    "     add <ENTITY> <SPECS>     create an entity\n"
    "     create <ENTITY> <SPECS>  the same as add\n"
    "     delete <ENTITY> where <SPECS>\n"
    "                              remove the entities that match\n"
    "     list <ENTITY> [<SPECS>]  print the entities that match\n"
    "     show <ENTITY> [<SPECS>]  the same as list\n"
    "     modify <ENTITY> where <SPECS> set <SPECS>\n"
    "                              change the entities that match\n"
    "     help                     print this text\n"
    "     version                  print the version\n"
    "\n"
    "  <ENTITY> may be \"account\", \"association\", \"cluster\", \"qos\" or \"user\".\n"
    "\n"
    "  <SPECS> are different for each command entity pair, for example:\n"
    "       add account Name=<name> [Parent=<account>] [Description=<text>]\n"
    "       add user Name=<name> Account=<account> [DefaultAccount=<account>]\n"
    "       add qos Name=<name> [Priority=<n>] [MaxWall=<time>] [GrpTRES=<tres>]\n"
    "       list associations [User=<names>] [Account=<names>] [format=<fields>]\n"
    "       list users|accounts|qos|clusters [format=<fields>]\n"
    "       modify cluster where Name=<name> set <specs>\n"
    "       modify user|account|qos where <specs> set <specs>\n"
    "       delete qos where Name=<names>\n"
    "       delete user|account where Name=<names>\n";

constexpr char kSallocUsage[] =
    "Usage: salloc [-N numnodes] [-n num-processors] [-c ncpus] [-t minutes]\n"
    "              [-p partition] [-A account] [-q qos] [-J jobname]\n"
    "              [-w hosts] [-x hosts] [-C constraints] [--mem=MB]\n"
    "              [--gres=list] [--gpus=n] [--gpus-per-node=n] [--exclusive]\n"
    "              [--reservation=name] [-D path] [--export=names]\n"
    "              [command [args...]]\n";

// sbatch, salloc and srun share most options.
#define SLUICE_ALLOC_OPTIONS                                                          \
  "  -A, --account=name          charge the job to this account\n"                    \
  "  -b, --begin=time            do not start the job before this time\n"             \
  "  -c, --cpus-per-task=ncpus   CPUs for each task\n"                                \
  "  -C, --constraint=list       only nodes with these features\n"                    \
  "      --comment=text          a comment stored with the job\n"                     \
  "  -d, --dependency=type:jobid start after other jobs (afterok, afterany, ...)\n"   \
  "  -D, --chdir=path            working directory of the job\n"                      \
  "      --exclusive             whole nodes, shared with no other job\n"             \
  "      --export=[ALL|NONE|names] environment passed to the job\n"                   \
  "  -G, --gpus=n                GPUs for the whole job\n"                            \
  "      --gpus-per-node=n       GPUs on each node\n"                                 \
  "      --gpus-per-task=n       GPUs for each task\n"                                \
  "      --gres=list             generic resources on each node (gpu:8)\n"            \
  "  -J, --job-name=name         name of the job\n"                                   \
  "      --mem=MB                memory per node (K, M, G or T suffix; 0 = all)\n"    \
  "      --mem-per-cpu=MB        memory per allocated CPU\n"                          \
  "      --mem-per-gpu=MB        memory per allocated GPU\n"                          \
  "      --mincpus=n             only nodes with at least this many CPUs\n"           \
  "  -n, --ntasks=ntasks         number of tasks\n"                                   \
  "  -N, --nodes=N               number of nodes (min[-max])\n"                       \
  "  -O, --overcommit            allocate one task's CPUs per node, run more tasks\n" \
  "      --ntasks-per-node=n     tasks on each node\n"                                \
  "  -p, --partition=partition   partition to run in\n"                               \
  "  -q, --qos=qos               quality of service\n"                                \
  "      --reservation=name      run in this reservation\n"                           \
  "      --signal=[B:]num[@time] send a signal this long before the time limit\n"     \
  "  -t, --time=minutes          time limit ([days-]hours:minutes:seconds)\n"         \
  "      --tmp=MB                only nodes with this much temporary disk\n"          \
  "  -w, --nodelist=hosts        run on these nodes\n"                                \
  "  -x, --exclude=hosts         never run on these nodes\n"

// The end of sbatch's, srun's and salloc's help; `usage_short` is "-u, " for sbatch (srun's
// -u is --unbuffered).
#define SLUICE_ALLOC_FOOTER(usage_short)                                         \
  "\n"                                                                           \
  "Help options:\n"                                                              \
  "  -h, --help                  show this help message\n"                       \
  "  " usage_short                                                               \
  "--usage                 display a brief usage message\n"                      \
  "\n"                                                                           \
  "Other options:\n"                                                             \
  "  -Q, --quiet                 quiet mode (suppress informational messages)\n" \
  "  -v, --verbose               verbose mode\n"                                 \
  "  -V, --version               output version information and exit\n"

constexpr char kSbatchUsage[] =
    "Usage: sbatch [-N nnodes] [-n ntasks] [-c ncpus] [-t minutes] [-p partition]\n"
    "              [-A account] [-q qos] [-J jobname] [-o file] [-e file] [-i file]\n"
    "              [-D path] [-a array] [-d dependency] [-b time] [-w hosts]\n"
    "              [-x hosts] [-C constraints] [--mem=MB] [--mem-per-cpu=MB]\n"
    "              [--gres=list] [--gpus=n] [--gpus-per-node=n] [--gpus-per-task=n]\n"
    "              [--exclusive] [--export=names] [--signal=[B:]num[@time]]\n"
    "              [--requeue] [--no-requeue] [--hold] [--parsable] [--wrap=command]\n"
    "              executable [args...]\n";

constexpr char kSbatchHelp[] =
    "Usage: sbatch [OPTIONS(0)...] [ : [OPTIONS(N)...]] script(0) [args(0)...]\n"
    "       (script \"-\": read from standard input; \":\" starts a heterogeneous component)\n"
    "\n"
    "Parallel run options:\n"
    "  -a, --array=indexes         a job array (0-15, 1,3,5, 0-99%4)\n" SLUICE_ALLOC_OPTIONS
    "  -e, --error=file            file for the batch script's standard error\n"
    "  -H, --hold                  submit the job held\n"
    "  -i, --input=file            file for the batch script's standard input\n"
    "  -o, --output=file           file for the batch script's standard output\n"
    "      --open-mode=append|truncate  how to open the output files\n"
    "      --parsable              print only the job id\n"
    "      --requeue, --no-requeue whether the job may be requeued\n"
    "      --test-only             say when the job would start; submit nothing\n"
    "  -W, --wait                  return when the job ends, with its exit code\n"
    "      --wrap=command          the batch script is \"#!/bin/sh\" and this "
    "command\n" SLUICE_ALLOC_FOOTER("-u, ");

constexpr char kSrunUsage[] =
    "Usage: srun [-N nnodes] [-n ntasks] [-c ncpus] [-t minutes] [-p partition]\n"
    "            [-A account] [-q qos] [-J jobname] [-o file] [-e file] [-i file]\n"
    "            [-D path] [-w hosts] [-x hosts] [-C constraints] [--mem=MB]\n"
    "            [--gres=list] [--gpus=n] [--gpus-per-node=n] [--gpus-per-task=n]\n"
    "            [--jobid=id] [--overlap] [--exact] [--cpu-bind=type]\n"
    "            [--gpu-bind=type] [-l] [-u] [-K[=code]] [-W sec]\n"
    "            [--task-prolog=file] [--task-epilog=file] [--multi-prog]\n"
    "            executable [args...]\n";

constexpr char kSrunHelp[] =
    "Usage: srun [OPTIONS(0)... [executable(0) [args(0)...]]]\n"
    "\n"
    "Parallel run options:\n" SLUICE_ALLOC_OPTIONS
    "      --cpu-bind=type         bind tasks to CPUs (none, cores, ...)\n"
    "  -e, --error=file            file for the tasks' standard error\n"
    "      --exact                 the step gets only what it asked for\n"
    "      --gpu-bind=type         bind tasks to GPUs (closest, ...)\n"
    "  -H, --hold                  submit the allocation held\n"
    "      --het-group=k           run the step in component k of a heterogeneous job\n"
    "  -I, --immediate[=secs]      give up when not allocated within secs (default 1)\n"
    "  -i, --input=file            file for the tasks' standard input\n"
    "      --jobid=id              run the step in this existing job\n"
    "  -K, --kill-on-bad-exit[=0|1] end the step when a task fails\n"
    "  -l, --label                 prefix output lines with the task number\n"
    "  -m, --distribution=type     how tasks are laid out (block, cyclic)\n"
    "      --mpi=type              accepted (the environment is set for every MPI)\n"
    "      --multi-prog            the executable is a file of \"ranks program args\"\n"
    "  -o, --output=file           file for the tasks' standard output\n"
    "      --overlap               share resources with other steps\n"
    "      --propagate[=rlimits]   give the tasks this shell's resource limits (ALL,\n"
    "                              NONE, or a list: CORE,NOFILE,STACK,...)\n"
    "      --quit-on-interrupt     the first Ctrl-C kills the step\n"
    "      --task-epilog=program   run this after each task ends, on its node\n"
    "      --task-prolog=program   run this before each task; its \"export\" lines\n"
    "                              go into the task's environment\n"
    "  -T, --threads=n             accepted (the launch does not use threads)\n"
    "  -u, --unbuffered            do not buffer the tasks' output\n"
    "  -W, --wait=sec              end the step sec seconds after the first task "
    "ends\n" SLUICE_ALLOC_FOOTER("    ");

constexpr char kSallocHelp[] =
    "Usage: salloc [OPTIONS...] [command [args...]]\n"
    "\n"
    "Parallel run options:\n" SLUICE_ALLOC_OPTIONS
    "  -I, --immediate[=secs]      give up when not allocated within secs (default "
    "1)\n" SLUICE_ALLOC_FOOTER("    ");

#undef SLUICE_ALLOC_OPTIONS
#undef SLUICE_ALLOC_FOOTER

constexpr char kScancelUsage[] =
    "Usage: scancel [-A account] [--batch] [--full] [-n job_name]\n"
    "               [-p partition] [-Q] [-q qos] [-s signal | integer]\n"
    "               [-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]\n"
    "               [-V] [-v] [-w hosts...] [--wckey=wckey] [job_id[_array_id][.step_id]]\n";

constexpr char kScancelHelp[] =
    "Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]...]\n"
    "  -A, --account=account           act only on jobs charged to this account\n"
    "  -b, --batch                     signal the batch shell only\n"
    "  -f, --full                      signal the batch shell, its children and steps\n"
    "      --me                        act only on the caller's jobs\n"
    "  -n, --name=job_name             act only on jobs with this name\n"
    "  -p, --partition=partition       act only on jobs in this partition\n"
    "  -Q, --quiet                     print no warnings\n"
    "  -q, --qos=qos                   act only on jobs with this QOS\n"
    "  -s, --signal=name | integer     send this signal instead of cancelling\n"
    "  -t, --state=states              act only on jobs in these states\n"
    "  -u, --user=user_name            act only on jobs of this user\n"
    "  -v, --verbose                   say what is done\n"
    "  -V, --version                   print the version\n"
    "  -w, --nodelist=hosts            act only on jobs using these nodes\n"
    "\n"
    "Help options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display a brief usage message\n";

constexpr char kScontrolHelp[] =
    "scontrol [<OPTION>] [<COMMAND>]\n"
    "    Valid <OPTION> values are:\n"
    "     -d or --details: print more detail (show job -d adds the batch script's\n"
    "                      host, -dd more)\n"
    "     -h or --help: print this text\n"
    "     -o or --oneliner: print each record on one line\n"
    "     -Q or --quiet: print no warnings\n"
    "     -V or --version: print the version\n"
    "     --json: print show's records as JSON\n"
    "\n"
    "    Valid <COMMAND> values are:\n"
    "     create <SPECS>           create a reservation\n"
    "     delete <SPECS>           delete a reservation (ReservationName=<name>)\n"
    "     help                     print this text\n"
    "     hold <job_list>          hold jobs (admin hold)\n"
    "     ping                     report whether each controller answers\n"
    "     reconfigure              reread the controller's config file and apply what\n"
    "                              changed, or say why nothing was (admins)\n"
    "     release <job_list>       release held jobs\n"
    "     requeue <job_list>       requeue jobs (running ones end first)\n"
    "     requeuehold <job_list>   requeue jobs and hold them\n"
    "     setdebug <LEVEL>         set the controller's log level (quiet, fatal,\n"
    "                              error, info, verbose, debug, debug2..debug5)\n"
    "     show <ENTITY> [<ID>]     print the entity named, or every one\n"
    "     takeover                 hand control to a standby controller (state/pgsql)\n"
    "     token [lifespan=<secs>] [username=<user>]\n"
    "                              print a JWT as SLURM_JWT=<token> (auth/jwt)\n"
    "     uhold <job_list>         hold jobs (user hold)\n"
    "     update <SPECS>           change a job or a node\n"
    "     version                  print the version\n"
    "\n"
    "  <ENTITY> may be \"config\", \"hostlist\", \"hostlistsorted\", \"hostnames\",\n"
    "  \"job\", \"node\", \"partition\", \"reservation\" or \"step\".\n"
    "\n"
    "  <SPECS> are Key=Value pairs, e.g. JobId=<id> TimeLimit=<time>,\n"
    "  NodeName=<nodes> State=DRAIN Reason=<text>.\n";

constexpr char kSinfoUsage[] =
    "Usage: sinfo [-adelNRrsv] [-t states] [-p partition] [-n nodes]\n"
    "             [-S fields] [-o format] [-O Format] [--json] [--usage]\n";

constexpr char kSinfoHelp[] =
    "Usage: sinfo [OPTIONS]\n"
    "  -a, --all                  show every partition\n"
    "  -d, --dead                 only nodes that do not respond\n"
    "  -e, --exact                group only nodes of exactly the same configuration\n"
    "  -h, --noheader             no header line\n"
    "      --json                 print the nodes and partitions as JSON\n"
    "  -l, --long                 print more fields\n"
    "  -n, --nodes=NODES          only these nodes\n"
    "  -N, --Node                 one line per node\n"
    "  -o, --format=format        fields to print (%P %a %l %D %t %N ...)\n"
    "  -O, --Format=fields        fields to print, by name\n"
    "  -p, --partition=PARTITION  only this partition\n"
    "  -r, --responding           only nodes that respond\n"
    "  -R, --list-reasons         why nodes are down or drained\n"
    "  -s, --summarize            one line per partition, nodes by state\n"
    "  -S, --sort=fields          sort by these fields\n"
    "  -t, --states=node_state    only nodes in these states\n"
    "  -v, --verbose              verbose mode\n"
    "  -V, --version              print the version\n"
    "\n"
    "Help options:\n"
    "  --help                     show this help message\n"
    "  --usage                    display a brief usage message\n";

constexpr char kSprioUsage[] =
    "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n"
    "             [--federation] [--local] [--sibling] [--usage] [-hlnvVw]\n";

constexpr char kSprioHelp[] =
    "Usage: sprio [OPTIONS]\n"
    "  -h, --noheader          no header line\n"
    "  -j, --jobs              only these jobs\n"
    "  -l, --long              print every priority factor\n"
    "  -M, --cluster           accepted; Sluice runs one cluster\n"
    "  -n, --norm              print the factors normalized to 0..1\n"
    "  -o, --format=format     fields to print (%i %u %Y %A %F %J %P %Q ...)\n"
    "  -p, --partition         only jobs in these partitions\n"
    "  -S, --sort=fields       sort by these fields\n"
    "  -u, --user              only jobs of these users\n"
    "  -v, --verbose           verbose mode\n"
    "  -V, --version           print the version\n"
    "  -w, --weights           print the configured weight of each factor\n"
    "\n"
    "Help options:\n"
    "  --help                  show this help message\n"
    "  --usage                 display a brief usage message\n";

constexpr char kSqueueUsage[] =
    "Usage: squeue [-A account] [--clusters names] [--job jobid]\n"
    "              [-n name] [-o format] [-O fields] [-p partitions] [--qos qos]\n"
    "              [--sort fields] [--start]\n"
    "              [--step step_id] [-t states] [-u user_name] [--usage]\n"
    "              [-w nodes] [--json] [-ahjlrsv]\n";

constexpr char kSqueueHelp[] =
    "Usage: squeue [OPTIONS]\n"
    "  -A, --account=account(s)        only jobs of these accounts\n"
    "  -a, --all                       every partition, hidden ones too\n"
    "  -h, --noheader                  no header line\n"
    "  -j, --jobs=job(s)               only these jobs\n"
    "      --json                      print the jobs as JSON\n"
    "  -l, --long                      print more fields\n"
    "      --me                        only the caller's jobs\n"
    "  -n, --name=job_name(s)          only jobs with these names\n"
    "  -o, --format=format             fields to print (%i %P %j %u %t %M %D %R ...)\n"
    "  -O, --Format=fields             fields to print, by name\n"
    "  -p, --partition=partition(s)    only jobs in these partitions\n"
    "  -q, --qos=qos(s)                only jobs with these QOS\n"
    "  -r, --array                     one line per array task\n"
    "  -s, --steps=step(s)             print steps, not jobs\n"
    "  -S, --sort=fields               sort by these fields\n"
    "      --start                     pending jobs with their expected start time\n"
    "  -t, --states=state(s)           only jobs in these states (all for every one)\n"
    "  -u, --user=user_name(s)         only jobs of these users\n"
    "  -v, --verbose                   verbose mode\n"
    "  -V, --version                   print the version\n"
    "  -w, --nodelist=hostlist         only jobs on these nodes\n"
    "\n"
    "Help options:\n"
    "  --help                          show this help message\n"
    "  --usage                         display a brief usage message\n";

constexpr char kSreportHelp[] =
    "sreport [<OPTION>] [<COMMAND>]\n"
    "    Valid <OPTION> values are:\n"
    "     -h or --help: print this text\n"
    "     -n or --noheader: no header lines\n"
    "     -p or --parsable: fields delimited by '|', with a trailing '|'\n"
    "     -P or --parsable2: fields delimited by '|', without a trailing '|'\n"
    "     -t <unit>: minutes (default), hours, seconds or percent\n"
    "     -T or --tres=<list>: the TRES to report (cpu, gres/gpu, node; gres/gpuutil:\n"
    "         GPU time kept busy, user topusage only)\n"
    "     -V or --version: print the version\n"
    "\n"
    "    Valid <COMMAND> values are:\n"
    "     cluster Utilization [<SPECS>]   the cluster's use over the period\n"
    "     user TopUsage [<SPECS>]         the users who used the most\n"
    "\n"
    "  <SPECS> are Start=<time> End=<time>\n";

constexpr char kSshareUsage[] = "Usage: sshare [-A accounts] [-u users] [-alnpPvV] [--usage]\n";

constexpr char kSshareHelp[] =
    "Usage: sshare [OPTIONS]\n"
    "  -a, --all               every user of the accounts shown\n"
    "  -A, --accounts=accounts only these accounts\n"
    "  -l, --long              print more fields\n"
    "  -n, --noheader          no header line\n"
    "  -p, --parsable          fields delimited by '|', with a trailing '|'\n"
    "  -P, --parsable2         fields delimited by '|', without a trailing '|'\n"
    "  -u, --users=users       only these users\n"
    "  -v, --verbose           verbose mode\n"
    "  -V, --version           print the version\n"
    "\n"
    "Help options:\n"
    "  --help                  show this help message\n"
    "  --usage                 display a brief usage message\n";

constexpr char kSdiagUsage[] = "Usage: sdiag [-a] [-r] [--json] [-V] [--usage] [--help]\n";

constexpr char kSdiagHelp[] =
    "Usage: sdiag [OPTIONS]\n"
    "  -a, --all               print every statistic (the default)\n"
    "      --json              print the statistics as JSON\n"
    "  -r, --reset             reset the counters (admins only)\n"
    "  -V, --version           print the version\n"
    "\n"
    "Help options:\n"
    "  --help                  show this help message\n"
    "  --usage                 display a brief usage message\n";

constexpr char kSbcastUsage[] = "Usage: sbcast [-CfFjpstvV] SOURCE DEST\n";

constexpr char kSbcastHelp[] =
    "Usage: sbcast [OPTIONS] SOURCE DEST\n"
    "  -C, --compress[=library]  accepted (the copy streams as it is)\n"
    "  -f, --force               replace DEST where it exists\n"
    "  -F, --fanout=num          accepted\n"
    "  -j, --jobid=#[.#]         the job whose nodes get the file (default $SLURM_JOB_ID)\n"
    "  -p, --preserve            keep SOURCE's mode and modification time\n"
    "  -s, --size=num            accepted\n"
    "  -t, --timeout=secs        accepted\n"
    "  -v, --verbose             verbose mode\n"
    "  -V, --version             print the version\n"
    "\n"
    "Help options:\n"
    "  --help                    show this help message\n"
    "  --usage                   display a brief usage message\n";

constexpr char kSstatUsage[] =
    "Usage: sstat [options] -j <job(.stepid)>\n"
    "\tUse --help for help\n";

constexpr char kSstatHelp[] =
    "sstat [<OPTION>] -j <job(.stepid)>\n"
    "    Valid <OPTION> values are:\n"
    "      -a, --allsteps:\n"
    "\t           Print all steps for the given job(s) when no step is\n"
    "\t           specified.\n"
    "      -e, --helpformat:\n"
    "\t           Print a list of fields that can be specified with the\n"
    "\t           '--format' option\n"
    "     -h, --help:   Print this description of use.\n"
    "     -i, --pidformat:\n"
    "\t           Predefined format to list the pids running for each\n"
    "\t           job step.  (JobId,Nodes,Pids)\n"
    "     -j, --jobs:\n"
    "\t           Format is <job(.step)>. Stat this job step\n"
    "                   or comma-separated list of job steps. This option is\n"
    "                   required.  The step portion will default to the lowest\n"
    "                   numbered running step if not specified, unless the\n"
    "                   --allsteps flag is set.\n"
    "     --noconvert:\n"
    "\t           Don't convert units from their original type\n"
    "\t           (e.g. 2048M won't be converted to 2G).\n"
    "     -n, --noheader:\n"
    "\t           No header will be added to the beginning of output.\n"
    "\t           The default is to print a header.\n"
    "     -o, --format:\n"
    "\t           Comma separated list of fields.\n"
    "\t           (use \"--helpformat\" for a list of available fields).\n"
    "     -p, --parsable: output will be '|' delimited with a '|' at the end\n"
    "     -P, --parsable2: output will be '|' delimited without a '|' at the end\n"
    "     --usage:      Display brief usage message.\n"
    "     -v, --verbose:\n"
    "\t           Primarily for debugging purposes, report the state of\n"
    "\t           various variables during processing.\n"
    "     -V, --version: Print version.\n";

constexpr std::array<Texts, 15> kTexts = {{
    {"sacct", kSacctUsage, kSacctHelp},
    {"sacctmgr", kSacctmgrHelp, kSacctmgrHelp},
    {"salloc", kSallocUsage, kSallocHelp},
    {"sbatch", kSbatchUsage, kSbatchHelp},
    {"sbcast", kSbcastUsage, kSbcastHelp},
    {"scancel", kScancelUsage, kScancelHelp},
    {"scontrol", kScontrolHelp, kScontrolHelp},
    {"sdiag", kSdiagUsage, kSdiagHelp},
    {"sinfo", kSinfoUsage, kSinfoHelp},
    {"sprio", kSprioUsage, kSprioHelp},
    {"squeue", kSqueueUsage, kSqueueHelp},
    {"sreport", kSreportHelp, kSreportHelp},
    {"srun", kSrunUsage, kSrunHelp},
    {"sshare", kSshareUsage, kSshareHelp},
    {"sstat", kSstatUsage, kSstatHelp},
}};

}  // namespace

std::string_view HelpText(std::string_view command, HelpKind kind) {
  for (const Texts& t : kTexts) {
    if (t.command != command) continue;
    return kind == HelpKind::kUsage ? t.usage : t.help;
  }
  return {};
}

}  // namespace sluice
