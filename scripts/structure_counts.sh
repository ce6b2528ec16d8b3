#!/usr/bin/env bash
# Measures of "one place for each fact" (each with its limit below), on the sources of common/,
# server/, client/ and mpi/ (tests excluded):
#   1. shared files a socket transport touches: the files outside its own loop files that name
#      tcp-sendfile (its enum value, its loop classes), i.e. the places one edits to plug one in;
#   2. branches on the transport's kind outside the registry and the operations-table lookup
#      (is_rdma, is_verbs, TransportKind::);
#   3. places naming a Transport:: value outside the registry, and the files they are in;
#   4. memory-kind if-chains in the path factories (a `.simulated()` test outside the one choice);
#   5. class names in common/socket/ that start with Tcp (loops rsockets share);
#   6. lines of parse_client_options (client/cli.cpp);
#   7. source files that mention the --rcvlowat option (rcv_lowat / rcvlowat, any case);
#   8. (per kind: see 17)
#   9. JSON keys named twice in one file: per .cpp that uses nlohmann, the distinct
#      "snake_case" literals it spells at least twice (a to_json and its from_json, a key written then
#      looked up again), summed, as kind-footprint counts them; field tables name each key once;
#  10. files docs/structure.md names that do not exist (a path as written from the root, or a bare file
#      name that is nowhere in the tree; build/... is the build's, not checked), so the map stays true;
#  11. kind connection types named in common/core/: names of a kind's own connection type (an
#      rsocket, rdma, tls, flow or session word followed by Fd, Connection, Socket(s), Session, Deleter:
#      RsocketFd, RdmaConnection, TcpFlowSockets, SessionSocket, TlsConnection), each occurrence; core holds
#      them as KindConnection (common/core/data_connection.hpp) and each kind defines its own;
#  12. a kind's report data in core and in SideResult: the udp kind's names (a `udp` member or
#      variable, a Udp* type) in common/core outside the registry (its rows name every kind) and in
#      common/protocol/result.hpp, each occurrence; the kind's data is its own block and its loops' counts;
#  13. the RDMA kinds' report data outside their own files: `rdma` and `Rdma*` names (RdmaInfo,
#      a `rdma` member, rdma_info_of) in SideResult (result.hpp, result.cpp), the side runner, the generic
#      paths files (transport_ops.hpp, stream_path.*), the memory section's maker (run/gpu_placement.*),
#      message_stats and the CSV and human reports, each occurrence; the data is the rdma kinds' block.
#  15. the hooks of the kind contract: the members a kind may fill in (TransportOps, KindBlockType, KindOptionGroup,
#      KindParamsWire, RxModeRow, KindDescription, KindModule, KindTable), each declaration once; the lines that
#      register a kind's rows statically (register_kind_*: none, the program's list of kinds is generated from
#      common/kinds.cmake) and how often each kind is listed there (once);
#  17. for each kind of common/kinds.cmake, the source files outside its folder common/<kind>/ whose code
#      (comments cut) names it as the code spells a kind (lowercase: its rows, keys, layer: "udp", udp_...
#      aside; not the protocol's name in a user's sentence, "TCP", "RDMA"), explain's table of kernel
#      functions aside; for tcp, asio's ip::tcp (the control connection, not the kind) aside too; #include
#      lines aside too: a kind built on another (mptcp, tls and smc on tcp's sockets) includes its headers;
#      help texts name rows through the table (core/transport_registry.hpp's example_rows);
#  18. a kind's own enums and row fields in core: RdmaOp, TlsCrypto and the TransportInfo fields one kind alone
#      reads (queue_pairs, rdma_op, datagrams, gso, tls, socket_protocol, send_batch, flows), each declaration;
#  16. TCP's own parameters in the shared spec: the members of TestParams and SideSpec (run_spec.hpp) only the
#      TCP family reads (uring_fixed, rcv_lowat, flows, congestion, max_pacing_Bps, tos, crr_close, bind_dev),
#      each a member, where a kind's own parameters belong in its struct under TestParams::kind_params;
#  14. the TCP family's report data in SideResult: tcp / Tcp* names, rcv_lowat and connection_close
#      in the code (not the comments) of struct SideResult, each occurrence; they are the TCP block's
#      (tcp/tcp_report.hpp), filled by the kinds on TCP sockets.
# Usage: scripts/structure_counts.sh [--check]
#   --check: exit 1 when a count is above its limit (the ctest structure_counts, label unit).
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[[ ${1:-} == --check ]] && check=1

src=(common server client mpi)
files() { grep -rlE "$1" --include='*.cpp' --include='*.hpp' --include=CMakeLists.txt "${src[@]}" || true; }
lines() { grep -rnE "$1" --include='*.cpp' --include='*.hpp' "${src[@]}" || true; }
count() { grep -c . <<<"$1" || true; }

transport=$(files 'tcp_sendfile|TcpSendfile' | grep -v '^common/tcp/tcp_sendfile\.' | sort)
kind=$(lines '\bis_rdma\(|\bis_verbs\(|TransportKind::' |
    grep -vE '^common/core/transport_registry\.|^common/paths/transport_ops\.cpp:' || true)
named=$(lines 'Transport::' | grep -v '^common/core/transport_registry\.' || true)
memory=$(lines '\.simulated\(\)' | grep -E '^common/paths/' | grep -v '^common/paths/spec_rules\.cpp:' || true)
tcp_names=$(grep -rnE '^\s*(class|struct|using) Tcp|^template <[^>]*>\s*(class|struct) Tcp' common/socket || true)
parse_lines=$(awk '/^int parse_client_options\(/ {on=1} on {n++} on && /^}/ {print n; exit}' client/cli.cpp)
lowat=$(files 'rcv_lowat|rcvlowat|RCVLOWAT' | grep -vi cmakelists || true)
kind_type='\b\w*(Rsocket|Rdma|Tls|Flow|Session)\w*(Fd|Connection|ConnectionPtr|Deleter|Sockets?|Session)\b'
kind_types=$(grep -rnoE "$kind_type" --include='*.cpp' --include='*.hpp' common/core || true)
kind_members=$(grep -rnoE '\budp\b|\bUdp[A-Za-z]*' --include='*.cpp' --include='*.hpp' common/core common/protocol/result.hpp |
    grep -v '^common/core/transport_registry\.' || true)
rdma_members=$(grep -noE '\brdma\b|\bRdma[A-Za-z]*|\brdma_info[a-z_]*' common/protocol/result.[ch]pp \
    common/run/side_runner.[ch]pp common/kind/transport_ops.hpp common/paths/stream_path.[ch]pp \
    common/run/gpu_placement.[ch]pp common/protocol/message_stats.[ch]pp common/report/csv_report.cpp \
    common/report/human_report.cpp || true)
tcp_members=$(awk '/^struct SideResult \{/ {on=1} on {sub(/\/\/.*/, ""); print FILENAME ":" NR ": " $0} on && /^};/ {exit}' \
    common/protocol/result.hpp | grep -oE '^[^ ]+ |\b([Tt]cp[A-Za-z0-9_]*|rcv_lowat|connection_close)\b' |
    awk '/ $/ {at=$0; next} {print at $0}' || true)
# A kind's options: rows of its own module writing TestParams::kind_params, never members of the
# spec or rows and checks of zcperf's (36 before, RDMA's and UDP's).
kind_option_names=$(grep -nE '\.rdma\b|\brdma_dev\b|\bgso_size\b|RdmaOptions|\brdma_options\b|\bkind_options =' \
    common/protocol/run_spec.[ch]pp client/cli.cpp client/under_load.cpp client/run_driver.cpp \
    common/kind/spec_rules.cpp common/core/transport_registry.[ch]pp || true)

# A struct's members: statements ending in ';' at its own depth (a declaration over several lines counts once).
# A count's line, then what it counted, indented.
listed() {  # TITLE LINES
    printf '%-62s %s\n' "$1" "$(count "$2")"
    if [[ -n $2 ]]; then sed 's/^/    /' <<<"$2"; fi
}
hooks_of() {  # FILE STRUCT: its members, and those without a default (what a kind must fill in)
    awk -v s="$2" '
        $0 ~ "^(struct|class) " s " \\{" {on=1; depth=1; stmt=""; next}
        on {
            line=$0; sub(/\/\/.*/, "", line)
            if (depth == 1 && line ~ /^[[:space:]]*}/) {print n + 0, r + 0; exit}
            if (depth == 1) stmt = stmt " " line
            if (depth == 1 && line ~ /;[[:space:]]*$/) {
                if (stmt !~ /^[[:space:]]*(static|using|friend)/) {n++; if (stmt !~ /(=[^=]|\{\}[[:space:]]*;)/) r++}
                stmt=""
            }
            depth += gsub(/\{/, "{", line) - gsub(/\}/, "}", line)
        }' "$1"
}
contract=(common/kind/transport_ops.hpp:TransportOps common/protocol/kind_block.hpp:KindBlockType
    common/options/kind_options.hpp:KindOptionGroup common/protocol/kind_params_wire.hpp:KindParamsWire
    common/kind/transport_ops.hpp:RxModeRow common/core/kind_description.hpp:KindDescription
    common/kind/kind_module.hpp:KindModule common/kind/kind_module.hpp:KindTable)
# What the smallest kind fills in: its table, description, module and the module's table entry (a block,
# options, parameters and receive modes are optional: their structs' required members count only when given).
minimal=" TransportOps KindDescription KindModule KindTable "
hooks=0
must=0
hook_lines=""
for c in "${contract[@]}"; do
    read -r n r <<<"$(hooks_of "${c%%:*}" "${c##*:}")"
    hooks=$((hooks + n))
    [[ $minimal == *" ${c##*:} "* ]] && must=$((must + r))
    hook_lines+="    $n ${c##*:} ($r without a default)"$'\n'
done
tcp_params=$(awk '/^struct (TestParams|SideSpec) \{/ {on=1} on {sub(/\/\/.*/, ""); print FILENAME ":" NR ":" $0}
    on && /^};/ {on=0}' common/protocol/run_spec.hpp |
    grep -E '\b(uring_fixed|rcv_lowat|flows|congestion|max_pacing_Bps|tos|crr_close|bind_dev)\b' | sed 's/  */ /g' || true)
registrations=$(lines '\bregister_kind[a-z_]*\(' || true)
kinds=$(sed -nE 's/^set\(ZCPERF_KINDS ([a-z0-9 ]+)\).*/\1/p' common/kinds.cmake)
listed_twice=$(tr ' ' '\n' <<<"$kinds" | sort | uniq -d)
# 17: per kind, the files outside its folder naming it in code (comments cut).
footprint() {  # KIND
    local k=$1 f
    for f in $(grep -rlE "\\b$k\\b" --include='*.cpp' --include='*.hpp' --include=CMakeLists.txt "${src[@]}" |
        grep -vE "^common/$k/|^common/explain/categories\\." | sort); do
        sed -e 's://.*$::' -e 's:#.*$::' "$f" | { [[ $k == tcp ]] && sed -E 's/(ip::|asio::)tcp\b//g; s/\btcp::(socket|acceptor|endpoint|resolver)//g' || cat; } |
            { grep -cE "\\b$k\\b" || true; } | grep -qv '^0$' && echo "$f"  # grep -c reads all: no SIGPIPE
    done
    return 0
}
kind_enums=$(grep -nE '^enum class (RdmaOp|TlsCrypto)\b|^\s+(bool|RdmaOp|TlsCrypto|int) (queue_pairs|rdma_op|datagrams|gso|tls|socket_protocol|send_batch|flows)\b' \
    common/core/transport_registry.hpp | sed 's/  */ /g' || true)

printf '%-62s %s\n' "shared files a socket transport touches (tcp-sendfile):" "$(count "$transport")"
printf '    %s\n' $transport
listed "kind branches outside the registry and the table lookup:" "$kind"
printf '%-62s %s in %s files\n' "places naming a Transport:: value outside the registry:" "$(count "$named")" \
    "$(cut -d: -f1 <<<"$named" | sort -u | grep -c . || true)"
cut -d: -f1 <<<"$named" | sort | uniq -c | sed 's/^/  /'
listed "memory-kind if-chains in the path factories:" "$memory"
printf '%-62s %s\n' "class names in common/socket/ starting with Tcp:" "$(count "$tcp_names")"
printf '%-62s %s\n' "lines of parse_client_options:" "$parse_lines"
printf '%-62s %s\n' "source files that mention --rcvlowat:" "$(count "$lowat")"
json_keys=0
for f in $(grep -rl nlohmann --include='*.cpp' "${src[@]}" | sort); do
    n=$({ grep -ohE '"[a-z][a-z0-9_]{2,}"' "$f" || true; } | sort | uniq -c | awk '$1 >= 2' | wc -l)
    ((n > 0)) && printf '    %3d in %s\n' "$n" "$f"
    json_keys=$((json_keys + n))
done
printf '%-62s %s\n' "JSON keys named twice in one file:" "$json_keys"
missing=$(grep -oE '[A-Za-z0-9_./-]+\.(cpp|hpp|h|c|py|sh|md|cmake|txt)\b' docs/structure.md | sort -u |
    while read -r p; do
        [[ $p == build/* || -e $p ]] && continue
        [[ $p != */* && -n $(find common client server mpi tests scripts bench docs cmake -name "$p" -print -quit) ]] &&
            continue
        echo "$p"
    done)
printf '%-62s %s\n' "files docs/structure.md names that do not exist:" "$(count "$missing")"
[[ -n $missing ]] && printf '    %s\n' $missing
listed "kind connection types named in common/core:" "$kind_types"
listed "udp kind names in common/core and SideResult:" "$kind_members"
listed "rdma report names in SideResult and its readers:" "$rdma_members"
listed "kind option names in the spec and zcperf's rows:" "$kind_option_names"
printf '%-62s %s\n' "hooks of the kind contract:" "$hooks"
printf '%s' "$hook_lines"
printf '%-62s %s\n' "hooks the smallest kind must fill in:" "$must"
listed "static registrations of kinds' rows:" "$registrations"
listed "kinds listed more than once in common/kinds.cmake:" "$listed_twice"
declare -A kind_files
for k in $kinds; do
    kind_files[$k]=$(footprint "$k")
    listed "source files outside common/$k/ naming $k:" "${kind_files[$k]}"
done
listed "kinds' own enums and row fields in core:" "$kind_enums"
listed "TCP-only members in TestParams and SideSpec:" "$tcp_params"
listed "tcp names in SideResult:" "$tcp_members"

# The limits: where each count stands now, so that none grows back. Lower them as the code improves.
if ((check)); then
    bad=0
    limit() {  # NAME VALUE MAX
        if (($2 > $3)); then
            echo "structure_counts: $1 is $2, above its limit $3 (docs/structure.md says where each fact lives)" >&2
            bad=1
        fi
    }
    limit "shared files a socket transport touches" "$(count "$transport")" 2  # 4 before the kinds' folders
    limit "kind branches outside the registry" "$(count "$kind")" 0
    limit "places naming a Transport:: value outside the registry" "$(count "$named")" 0  # 6 before rows were found by name
    limit "memory-kind if-chains in the path factories" "$(count "$memory")" 0
    limit "class names in common/socket/ starting with Tcp" "$(count "$tcp_names")" 0
    limit "lines of parse_client_options" "$parse_lines" 243
    limit "source files that mention --rcvlowat" "$(count "$lowat")" 10
    # 49 before the stream figures' shared lines, tls's CSV columns named by its table, compare and the html
    # page reading the report by its writer's keys (the transport kinds' refactor aimed at <= 40)
    limit "JSON keys named twice in one file" "$json_keys" 22
    limit "files docs/structure.md names that do not exist" "$(count "$missing")" 0
    limit "kind connection types named in common/core" "$(count "$kind_types")" 0  # 29 before KindConnection
    limit "udp kind names in common/core and SideResult" "$(count "$kind_members")" 0
    limit "rdma report names in SideResult and its readers" "$(count "$rdma_members")" 0  # 68 before the block
    limit "tcp names in SideResult" "$(count "$tcp_members")" 0  # 6 before the TCP block
    limit "kind option names in the spec and zcperf's rows" "$(count "$kind_option_names")" 0  # 36 before
    # 17 + 15 + 4 + 6 + 4 + 5 + 5 + 2: 55 before UDP's last reads by shared code became its optional hooks
    # (KindBlockType::count_problem, RxModeRow::tests, KindModule::help_examples)
    limit "hooks of the kind contract" "$hooks" 58
    # TransportOps 5 + KindDescription 2 + KindModule 2 + KindTable 2; 9 before (TransportOps's, plus a row in
    # core's table, an enum value of Transport and of TransportKind and a registration, edits of shared files)
    limit "hooks the smallest kind must fill in" "$must" 11
    limit "static registrations of kinds' rows" "$(count "$registrations")" 0  # 10 before the list of kinds
    limit "kinds listed more than once in common/kinds.cmake" "$(count "$listed_twice")" 0
    # Files naming a kind outside its folder: the goal is 2 (the build and the list), rdma 7 (host topology and
    # GPU paths too); where each stands now, so none grows back (before the kinds' folders, counting the
    # protocols' names in any case too: udp 14, rdma 14, mptcp 5, tls 5, tcp 19).
    declare -A kind_limit=([mptcp]=1 [rdma]=7 [smc]=1 [tcp]=1 [tls]=1 [udp]=1)
    for k in $kinds; do
        limit "source files outside common/$k/ naming $k" "$(count "${kind_files[$k]}")" "${kind_limit[$k]:-2}"
    done
    limit "kinds' own enums and row fields in core" "$(count "$kind_enums")" 0  # 10 before the kinds' folders
    limit "TCP-only members in TestParams and SideSpec" "$(count "$tcp_params")" 0  # 8 before TcpParams
    exit $bad
fi
