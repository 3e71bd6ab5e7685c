# SPDX-License-Identifier: GPL-2.0-or-later
#
# Shared by the upload integration tests (sourced): a scratch directory,
# real collectors on loopback (nginx with WebDAV, systemd-journal-remote),
# test certificates made with openssl, and crashes in a store.
#
# Servers are started in the foreground of a background job and stopped by
# their own pid when the test ends, whatever happens.

set -eu

: "${top_builddir:?run from make check}" "${top_srcdir:?run from make check}"

PSTORED="$top_builddir/daemon/pstored"
PSTORECTL="$top_builddir/cli/pstorectl"
MAKE_CRASHES="$top_builddir/tests/upload/make-crashes"
JOURNAL_REMOTE=/usr/lib/systemd/systemd-journal-remote

# tmpfs: the store fsyncs every change, and the disk is shared with everything else.
T=$(mktemp -d "${TMPDIR:-/dev/shm}/pstored-upload.XXXXXX")
STORE="$T/store"
server_pids=""

cleanup() {
	for pid in $server_pids; do
		# A server a test stopped (SIGSTOP) must run to act on SIGTERM.
		kill -CONT "$pid" 2>/dev/null || :
		kill "$pid" 2>/dev/null || :
		wait "$pid" 2>/dev/null || :
	done
	# An nginx started by a test's own loop.
	if [ -f "$T/nginx/nginx.pid" ]; then
		kill "$(cat "$T/nginx/nginx.pid")" 2>/dev/null || :
	fi
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

skip_unless_root() {
	# nginx and journal-remote need no root, but the tests write where root can.
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root" >&2; exit 77; }
}

# A TCP port nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until something accepts connections on 127.0.0.1:$1 (the server's
# start-up, not a timing assumption: it gives up after a minute).
wait_listening() {
	python3 - "$1" <<-'EOF'
		import socket, sys, time
		for _ in range(600):
		    try:
		        socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1).close()
		        sys.exit(0)
		    except OSError:
		        time.sleep(0.1)
		sys.exit("nothing listens on port " + sys.argv[1])
	EOF
}

# make_ca NAME: $T/tls/NAME-ca.{key,pem}
make_ca() {
	mkdir -p "$T/tls"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$T/tls/$1-ca.key" -out "$T/tls/$1-ca.pem" -days 2 \
		-subj "/CN=pstored test CA $1" 2>/dev/null
}

# make_cert CA NAME: $T/tls/NAME.{key,pem} for 127.0.0.1, signed by CA.
make_cert() {
	printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' \
		>"$T/tls/$2.ext"
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
		-keyout "$T/tls/$2.key" -out "$T/tls/$2.csr" -subj "/CN=$2" 2>/dev/null
	openssl x509 -req -in "$T/tls/$2.csr" -CA "$T/tls/$1-ca.pem" -CAkey "$T/tls/$1-ca.key" \
		-CAcreateserial -out "$T/tls/$2.pem" -days 2 -extfile "$T/tls/$2.ext" 2>/dev/null
}

# start_nginx: nginx on 127.0.0.1:$NGINX_PORT (and HTTPS with HTTP/2 on
# $NGINX_TLS_PORT if $T/tls/nginx.pem exists), documents under $T/www.
# Locations:
#   /crashes/   WebDAV PUT: each document becomes a file
#   /paced/     the same, at most 20 requests a second (the rest wait)
#   /post/      accepts POST (201), stores nothing
#   /fail500/   500            /throttle/  429 + Retry-After: 3600
#   /busy/      503 + Retry-After: 120     /reject/   403 with an explanation
#   /conflict/  409            /reset/     closes the connection unanswered
#   /moved/ID   301 to /crashes/ID         /flood/     429 + Retry-After: 18446744073710
#   /c1/        403 whose answer holds a C1 control (CSI, U+009B) and a byte not UTF-8
#   /slow/      answers after 30 s
# The access log $T/nginx/access.log has one line a request:
#   METHOD URI STATUS CONNECTION PROTOCOL IDEMPOTENCY-KEY CONTENT-TYPE AUTHORIZATION
start_nginx() {
	: "${NGINX_PORT:=$(free_port)}"
	mkdir -p "$T/nginx/tmp" "$T/www/crashes" "$T/www/paced"
	tls=""
	if [ -f "$T/tls/nginx.pem" ]; then
		: "${NGINX_TLS_PORT:=$(free_port)}"
		tls="listen 127.0.0.1:$NGINX_TLS_PORT ssl http2;
		ssl_certificate $T/tls/nginx.pem;
		ssl_certificate_key $T/tls/nginx.key;"
		if [ -f "$T/tls/client-ca.pem" ]; then
			tls="$tls
		ssl_client_certificate $T/tls/client-ca.pem;
		ssl_verify_client optional;"
		fi
	fi
	csi=$(printf '\302\233') not_utf8=$(printf '\377')
	# The workers must reach the private, 0700 scratch directory.
	user=""
	[ "$(id -u)" -ne 0 ] || user="user root root;"
	cat >"$T/nginx/nginx.conf" <<-EOF
		daemon off;
		$user
		worker_processes 1;
		pid $T/nginx/nginx.pid;
		error_log $T/nginx/error.log info;
		load_module /usr/lib/nginx/modules/ngx_http_echo_module.so;
		events { worker_connections 512; }
		http {
			log_format upload '\$request_method \$uri \$status \$connection \$server_protocol '
				'\$http_idempotency_key \$content_type "\$http_authorization" '
				'\$ssl_client_verify';
			access_log $T/nginx/access.log upload;
			client_body_temp_path $T/nginx/tmp/body;
			proxy_temp_path $T/nginx/tmp/proxy;
			fastcgi_temp_path $T/nginx/tmp/fastcgi;
			uwsgi_temp_path $T/nginx/tmp/uwsgi;
			scgi_temp_path $T/nginx/tmp/scgi;
			client_max_body_size 64m;
			keepalive_requests 100000;
			limit_req_zone \$server_port zone=paced:64k rate=20r/s;
			server {
				listen 127.0.0.1:$NGINX_PORT;
				$tls
				root $T/www;
				location /crashes/ {
					dav_methods PUT;
					create_full_put_path on;
					dav_access user:rw;
				}
				location /paced/ {
					limit_req zone=paced burst=100000;
					dav_methods PUT;
					create_full_put_path on;
					dav_access user:rw;
				}
				location /post/ { return 201 "stored\n"; }
				location /fail500/ { return 500 "collector broken\n"; }
				location /throttle/ {
					add_header Retry-After 3600 always;
					return 429 "slow down\n";
				}
				location /busy/ {
					add_header Retry-After 120 always;
					return 503 "busy\n";
				}
				location /reject/ { return 403 "token lacks the crash:write scope\n"; }
				location /conflict/ { return 409 "already have it\n"; }
				location /c1/ { return 403 "token${csi}2J refused$not_utf8\n"; }
				location ~ ^/moved/(.*)\$ { return 301 /crashes/\$1; }
				location /flood/ {
					add_header Retry-After 18446744073710 always;
					return 429 "slow down\n";
				}
				location /reset/ { return 444; }
				location /slow/ { echo_sleep 30; echo "late"; }
			}
		}
	EOF
	nginx -p "$T/nginx" -c "$T/nginx/nginx.conf" -e "$T/nginx/error.log" &
	nginx_pid=$!
	server_pids="$server_pids $nginx_pid"
	wait_listening "$NGINX_PORT"
}

# stop_nginx: graceful (requests in flight finish), and wait for it.
stop_nginx() {
	kill -QUIT "$nginx_pid"
	wait "$nginx_pid" 2>/dev/null || :
	server_pids=$(echo "$server_pids" | sed "s/ $nginx_pid\b//")
}

# start_journal_remote http|https: systemd-journal-remote on
# 127.0.0.1:$JR_PORT, writing to $T/remote/ (https: with $T/tls/jr.{key,pem}).
start_journal_remote() {
	: "${JR_PORT:=$(free_port)}"
	mkdir -p "$T/remote"
	if [ "$1" = https ]; then
		listen="--listen-https=127.0.0.1:$JR_PORT --key=$T/tls/jr.key --cert=$T/tls/jr.pem"
	else
		listen="--listen-http=127.0.0.1:$JR_PORT"
	fi
	# shellcheck disable=SC2086
	"$JOURNAL_REMOTE" $listen --output="$T/remote/remote.journal" --split-mode=none \
		>"$T/journal-remote.log" 2>&1 &
	jr_pid=$!
	server_pids="$server_pids $jr_pid"
	wait_listening "$JR_PORT"
}

stop_journal_remote() {
	kill "$jr_pid"
	wait "$jr_pid" 2>/dev/null || :
	server_pids=$(echo "$server_pids" | sed "s/ $jr_pid\b//")
}

# write_config FILE SECTION...: a pstored.conf made of the given text.
write_config() {
	f=$1
	shift
	printf '%s\n' "$@" >"$f"
}

# make_crashes N [FIRST]: N crashes in $STORE, their ids on stdout.
make_crashes() {
	"$MAKE_CRASHES" "$STORE" "$@"
}

# upload_state ID TARGET: the state of crash ID for TARGET ("none" if unset).
upload_state() {
	python3 - "$STORE/$1/crash.json" "$2" <<-'EOF'
		import json, sys
		c = json.load(open(sys.argv[1]))
		print(c.get("upload", {}).get(sys.argv[2], {}).get("state", "none"))
	EOF
}

# upload_field ID TARGET KEY: one field of the upload state ("" if unset).
upload_field() {
	python3 - "$STORE/$1/crash.json" "$2" "$3" <<-'EOF'
		import json, sys
		c = json.load(open(sys.argv[1]))
		print(c.get("upload", {}).get(sys.argv[2], {}).get(sys.argv[3], ""))
	EOF
}

# count_requests PATTERN [MIN]: access log lines matching the extended regex.
# nginx logs a request after it has answered it, so a client can be done
# before the line is there: with MIN, wait (5 s at most) for MIN lines first.
count_requests() {
	local n i
	for i in $(seq 50); do
		n=$(grep -cE "$1" "$T/nginx/access.log" 2>/dev/null || :)
		[ "${n:-0}" -lt "${2:-0}" ] || break
		sleep 0.1
	done
	echo "${n:-0}"
}

# The host name the uploader sees (redaction): it runs in its own UTS namespace.
UPLOAD_HOSTNAME=crashhost7
export MAKE_CRASHES_HOSTNAME=$UPLOAD_HOSTNAME MAKE_CRASHES_SERIAL=PF2ABC9Z

# DMI serial numbers for redaction, as /sys/class/dmi/id shows them.
mkdir -p "$T/dmi"
echo PF2ABC9Z >"$T/dmi/product_serial"

# pstored_upload ARGS...: "pstored upload" with the test's store and config.
pstored_upload() {
	unshare -u sh -c 'hostname "$0"; exec "$@"' "$UPLOAD_HOSTNAME" \
		"$PSTORED" --config="$T/pstored.conf" --store-dir="$STORE" --dmi-dir="$T/dmi" \
		upload "$@"
}

# pstorectl_upload ARGS...: "pstorectl upload" likewise.
pstorectl_upload() {
	unshare -u sh -c 'hostname "$0"; exec "$@"' "$UPLOAD_HOSTNAME" \
		"$PSTORECTL" --store-dir="$STORE" upload --config="$T/pstored.conf" \
		--dmi-dir="$T/dmi" "$@"
}

# pstorectl_export ARGS...: "pstorectl export" likewise.
pstorectl_export() {
	unshare -u sh -c 'hostname "$0"; exec "$@"' "$UPLOAD_HOSTNAME" \
		"$PSTORECTL" --store-dir="$STORE" export --dmi-dir="$T/dmi" "$@"
}

# start_clickhouse: Debian's clickhouse-server with a configuration of its
# own: HTTP on 127.0.0.1:$CH_HTTP_PORT, the native protocol (for
# clickhouse-client) on $CH_TCP_PORT, no interserver port, data under
# $T/clickhouse, and besides "default" (no password) the user "pstored" with
# the key "$CH_KEY". Waits on /ping, a minute at most: its start-up takes
# seconds on a busy machine. Run again after stop_clickhouse, it starts on
# the same data.
CH_KEY=s3cret-ch-key
start_clickhouse() {
	: "${CH_HTTP_PORT:=$(free_port)}" "${CH_TCP_PORT:=$(free_port)}"
	mkdir -p "$T/clickhouse"
	cat >"$T/clickhouse/config.xml" <<-EOF2
		<?xml version="1.0"?>
		<yandex>
			<logger>
				<level>warning</level>
				<log>$T/clickhouse/server.log</log>
				<errorlog>$T/clickhouse/error.log</errorlog>
			</logger>
			<listen_host>127.0.0.1</listen_host>
			<http_port>$CH_HTTP_PORT</http_port>
			<tcp_port>$CH_TCP_PORT</tcp_port>
			<path>$T/clickhouse/data/</path>
			<tmp_path>$T/clickhouse/tmp/</tmp_path>
			<user_files_path>$T/clickhouse/user_files/</user_files_path>
			<format_schema_path>$T/clickhouse/format_schemas/</format_schema_path>
			<mark_cache_size>67108864</mark_cache_size>
			<uncompressed_cache_size>67108864</uncompressed_cache_size>
			<timezone>UTC</timezone>
			<users_config>$T/clickhouse/users.xml</users_config>
			<default_profile>default</default_profile>
			<default_database>default</default_database>
		</yandex>
	EOF2
	cat >"$T/clickhouse/users.xml" <<-EOF2
		<?xml version="1.0"?>
		<yandex>
			<profiles><default></default></profiles>
			<users>
				<default>
					<password></password>
					<networks><ip>127.0.0.1</ip></networks>
					<profile>default</profile>
					<quota>default</quota>
				</default>
				<pstored>
					<password>$CH_KEY</password>
					<networks><ip>127.0.0.1</ip></networks>
					<profile>default</profile>
					<quota>default</quota>
				</pstored>
			</users>
			<quotas><default></default></quotas>
		</yandex>
	EOF2
	/usr/sbin/clickhouse-server --config-file="$T/clickhouse/config.xml" \
		>"$T/clickhouse/stdout.log" 2>&1 &
	ch_pid=$!
	server_pids="$server_pids $ch_pid"
	for _ in $(seq 600); do
		[ "$(curl -s "http://127.0.0.1:$CH_HTTP_PORT/ping")" != "Ok." ] || return 0
		kill -0 "$ch_pid" 2>/dev/null ||
			{ cat "$T/clickhouse/stdout.log" "$T/clickhouse/error.log"; fail "clickhouse-server died"; }
		sleep 0.1
	done
	fail "clickhouse-server does not answer /ping on port $CH_HTTP_PORT after a minute"
}

stop_clickhouse() {
	kill -CONT "$ch_pid" 2>/dev/null || :
	kill "$ch_pid"
	wait "$ch_pid" 2>/dev/null || :
	server_pids=$(echo "$server_pids" | sed "s/ $ch_pid\b//")
}

# clickhouse_query SQL: the answer of the test's ClickHouse, as user default.
clickhouse_query() {
	clickhouse-client --host=127.0.0.1 --port="$CH_TCP_PORT" --multiquery --query="$1"
}
