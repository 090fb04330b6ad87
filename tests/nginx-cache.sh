#!/bin/sh
# SPDX-License-Identifier: GPL-3.0-or-later
# tests/nginx-cache.sh DIR PORT [TOKEN]: a remote cache server for the
# tests and benchmarks: Debian's nginx with WebDAV PUT, on 127.0.0.1:PORT,
# in the foreground, with its config, store (DIR/store, the cache at
# http://127.0.0.1:PORT/cache) and logs (DIR/access.log, DIR/error.log)
# under DIR. With TOKEN, every request must carry "Authorization: Bearer
# TOKEN" (else 401). tests/lib.sh's nginx_start and bench/overhead run it.
set -eu
dir=$1 port=$2 token=${3:-}
mkdir -p "$dir/store/cache" "$dir/tmp"
auth=
[ -z "$token" ] ||
  auth="if (\$http_authorization != \"Bearer $token\") { return 401; }"
cat >"$dir/nginx.conf" <<EOF
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log;
events { worker_connections 256; }
http {
  access_log $dir/access.log;
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
  server {
    listen 127.0.0.1:$port;
    root $dir/store;
    client_max_body_size 64m;
    location / {
      $auth
      dav_methods PUT DELETE;
      create_full_put_path on;
      dav_access user:rw group:r all:r;
    }
  }
}
EOF
exec nginx -p "$dir" -c "$dir/nginx.conf"
