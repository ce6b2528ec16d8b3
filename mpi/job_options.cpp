#include "job_options.hpp"

#include <stdexcept>

#include "placement.hpp"

namespace zc::mpi {

namespace {

constexpr const char* kDescription =
    "zcperf-mpi " ZCPERF_VERSION
    ": many zcperf pairs at once, launched by mpirun or srun.\n"
    "Every rank runs zcserver's code on its own port; the ranks meet through MPI, and the client rank of each "
    "pair\ndrives zcperf's test (any transport, --cpu, --mem-node, --irq-cpus, --buffer) against its server rank. "
    "The pairs\nof a round start behind one barrier; the report has every pair and each round's aggregate.\n"
    "LOCAL in the options below is the pair's client rank, REMOTE its server rank.\n";

constexpr const char* kExamples = R"(
Examples:
  mpirun -np 4 zcperf-mpi -l 5                    ranks 0,1 send to 2,3 at once (--pattern pairs)
  mpirun -np 8 zcperf-mpi --pattern incast -l 5   7 ranks stream into rank 0
  mpirun -np 4 zcperf-mpi --pattern matrix -t stream,rr -l 2 -o json > m.json
                                                  every ordered pair, disjoint pairs at once;
                                                  scripts/mpi_heatmap.py m.json draws the N x N map
  srun -N 2 -n 4 --mpi=pmix zcperf-mpi --rank-cpus 0-1,2-3 -l 5
                                                  local rank 0 on CPUs 0-1, local rank 1 on 2-3
  srun -N 1 -n 2 --mpi=pmix zcperf-mpi --buffer cuda:local:2,cuda:local:2 -t rr
                                                  two tasks on one GPU (cuda:local: one GPU per task)
When a rank dies, plain mpirun ends every rank (SIGTERM, then SIGKILL 1 s later): rank 0 has printed each
round as it ended (human, CSV) and --report-file FILE holds every finished round (any -o), the dead rank's
partner names the pair on stderr. With 'mpirun --enable-recovery' (or OMPI_MCA_orte_enable_recovery=1)
the others carry on, and zcperf-mpi names the dead rank's pairs and reports the others within --mpi-timeout.
Across hosts without ssh (the two-guest lab): mpirun --mca plm_rsh_agent scripts/lab/mpi_agent.sh (docs/lab.md).
As root, Open MPI wants --allow-run-as-root; more ranks than cores need --oversubscribe.
Exit status: 0 every pair ran, 1 a pair or a rank failed (named in the report), 2 bad usage.
)";

}  // namespace

// Options zcperf-mpi adds to zcperf's (which it takes as they are), one row each, and the zcperf options
// it refuses.
CliProgram mpi_program(MpiOptions& m) {
    CliProgram p;
    p.name = "zcperf-mpi";
    p.description = kDescription;
    p.examples = kExamples;
    p.per_rank = true;
    p.rows = {
        text("--pattern",
             "which ranks test which: pairs (rank i with i+N/2, all at once), incast (every rank to rank 0 at "
             "once), fanout (rank 0 to every rank at once), matrix (every ordered pair, in rounds of disjoint pairs)",
             [&m](const std::string& t) { m.pattern = pattern_from_name(t); })
            .choose(enum_names(Pattern::matrix, pattern_name))
            .shows(pattern_name(m.pattern)),
        flag("--one-pair-at-a-time", m.one_at_a_time,
             "matrix: one pair per round (N(N-1) rounds, as mpiGraph's serial mode), so no pair shares the network "
             "or the host with another"),
        text("--rank-cpus",
             "CPUs of each local rank's data threads (as client and as server), by the launcher's local rank "
             "(OMPI_COMM_WORLD_LOCAL_RANK, SLURM_LOCALID): 0+1,2+3 = local rank 0 on CPUs 0-1, 1 on 2-3, then "
             "round again; replaces --cpu",
             [&m](const std::string& t) { m.rank_cpus = parse_rank_cpus(t); }),
        value("--iface", m.iface,
              "network interface whose IPv4 address every rank's server listens on and is reached at (e.g. ib0); "
              "default: all addresses, ranks of one host meeting on loopback"),
        value_in("--mpi-timeout", m.timeout_s, Bounds<double>{1, 86400},
                 "seconds a rank waits at a barrier, or rank 0 for a round's results, beyond -l before it names the "
                 "missing ranks and ends the job; under 35 a stalled pair's client rank is named missing rather "
                 "than the pair failed with its reason"),
        value("--report-file", m.report_file,
              "rank 0 also writes the report (in -o's format) to FILE, replaced after every round, so it is "
              "complete up to the last finished round however the job ends (mpirun ends the whole job when one "
              "rank dies, and may drop the end of what the ranks printed)")
            .value_kind("FILE"),
        value("--fault-refuse-rank", m.refuse_ranks,
              "testing: these ranks' servers refuse every test (zcserver's own --max-duration check)")
            .hide(),
    };
    p.check = [&m](const ClientOptions& o) {
        if (!o.servers.empty())
            throw std::invalid_argument("-H: zcperf-mpi's servers are its own ranks; choose them with --pattern");
        if (o.topology || o.gpu_copy_bandwidth)
            throw std::invalid_argument("--topology and --gpu-copy-bandwidth are zcperf's: run them with zcperf");
        if (o.params.total_bytes)
            throw std::invalid_argument("-n: zcperf-mpi's pairs run for a time (-l), so every round ends in bounds");
        if (o.goal.max_iterations > 1 || o.invocations > 1)
            throw std::invalid_argument(
                "-i/-I/--invocations: zcperf-mpi runs each round once; repeat the job for more samples");
        if (o.params.irq_wait_s > 0 || o.params.server_wait_s > 0)  // a round's pairs start together
            throw std::invalid_argument(
                "--irq-wait/--server-wait: the pairs of a round start together, so a pair cannot wait for another "
                "pair's IRQs; one that finds them held is refused, naming the holder. Give the pairs of one host "
                "NICs of their own, or run one pair per host with --irq-cpus");
        if (o.bidir || o.family)  // zcperf's; a pair's addresses are the ranks' own
            throw std::invalid_argument("--bidir and -4/-6 are zcperf's: run them with zcperf");
        if (!o.samples_file.empty())  // the ranks' files are not gathered yet
            throw std::invalid_argument("--samples is zcperf's (one client, one file): run the pair with zcperf");
        if (m.one_at_a_time && m.pattern != Pattern::matrix)
            throw std::invalid_argument("--one-pair-at-a-time is for --pattern matrix");
        if (!m.rank_cpus.empty() && (!o.local.cpus.empty() || !o.remote.cpus.empty()))
            throw std::invalid_argument("--rank-cpus replaces --cpu: give one of them");
    };
    return p;
}

}  // namespace zc::mpi
