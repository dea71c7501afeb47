/* The floor: answers every JSON-RPC request with a canned result and does nothing else, so the
 * benchmark can tell the cost of the client and the pipe or socket from a server's own cost.
 *
 *   null_responder [--poll]              one message per line on stdin/stdout
 *   null_responder [--poll] --http PORT  HTTP/1.1 keep-alive on 127.0.0.1:PORT, POST /mcp
 *
 * --poll: before each read that would block, poll the descriptor for up to 50 us (the most
 * skillrt's adaptive idle polling uses), so the floor of a polling server can be told too.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int g_poll = 0;

/* With --poll: spins on poll() for up to 50 us or until `fd` is readable. */
static void poll_briefly(int fd) {
  if (!g_poll) return;
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  struct pollfd pfd = {fd, POLLIN, 0};
  for (;;) {
    if (poll(&pfd, 1, 0) != 0) return;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long waited = (now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec);
    if (waited >= 50000) return;
  }
}

static const char kResult[] =
    ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}],\"isError\":false}}";

/* Copies the raw id value of a request into `id`; 0 when the message has none. */
static size_t find_id(const char* msg, size_t len, char* id, size_t cap) {
  const char* p = memmem(msg, len, "\"id\":", 5);
  if (p == NULL) return 0;
  p += 5;
  size_t n = 0;
  while (p < msg + len && *p != ',' && *p != '}' && n + 1 < cap) id[n++] = *p++;
  return n;
}

static int write_all(int fd, const char* data, size_t len) {
  while (len > 0) {
    ssize_t n = write(fd, data, len);
    if (n <= 0) return -1;
    data += n;
    len -= (size_t)n;
  }
  return 0;
}

static size_t make_answer(char* out, const char* id, size_t id_len) {
  size_t n = (size_t)sprintf(out, "{\"jsonrpc\":\"2.0\",\"id\":%.*s", (int)id_len, id);
  memcpy(out + n, kResult, sizeof(kResult) - 1);
  return n + sizeof(kResult) - 1;
}

static int serve_stdio(void) {
  size_t cap = 1 << 20, used = 0;
  char* buf = malloc(cap);
  char out[512];
  char id[128];
  for (;;) {
    if (used == cap) buf = realloc(buf, cap *= 2);
    poll_briefly(0);
    ssize_t n = read(0, buf + used, cap - used);
    if (n <= 0) break;
    used += (size_t)n;
    size_t start = 0;
    char* nl;
    while ((nl = memchr(buf + start, '\n', used - start)) != NULL) {
      size_t len = (size_t)(nl - (buf + start));
      size_t id_len = find_id(buf + start, len, id, sizeof(id));
      if (id_len > 0) {
        size_t m = make_answer(out, id, id_len);
        out[m++] = '\n';
        if (write_all(1, out, m) != 0) return 0;
      }
      start += len + 1;
    }
    memmove(buf, buf + start, used - start);
    used -= start;
  }
  free(buf);
  return 0;
}

static void* serve_connection(void* arg) {
  int fd = (int)(intptr_t)arg;
  size_t cap = 1 << 20, used = 0;
  char* buf = malloc(cap);
  char out[1024];
  char answer[512];
  char id[128];
  for (;;) {
    char* end = memmem(buf, used, "\r\n\r\n", 4);
    if (end == NULL) {
      if (used == cap) break;
      poll_briefly(fd);
      ssize_t n = read(fd, buf + used, cap - used);
      if (n <= 0) break;
      used += (size_t)n;
      continue;
    }
    size_t head = (size_t)(end - buf) + 4;
    const char* cl = memmem(buf, head, "Content-Length: ", 16);
    size_t body = cl ? strtoul(cl + 16, NULL, 10) : 0;
    while (used < head + body && used < cap) {
      ssize_t n = read(fd, buf + used, cap - used);
      if (n <= 0) goto done;
      used += (size_t)n;
    }
    size_t id_len = find_id(buf + head, body, id, sizeof(id));
    size_t m;
    if (id_len > 0) {
      size_t a = make_answer(answer, id, id_len);
      m = (size_t)sprintf(out,
                          "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                          "Mcp-Session-Id: null\r\nContent-Length: %zu\r\n\r\n%.*s",
                          a, (int)a, answer);
    } else {
      m = (size_t)sprintf(out, "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n");
    }
    if (write_all(fd, out, m) != 0) break;
    memmove(buf, buf + head + body, used - head - body);
    used -= head + body;
  }
done:
  free(buf);
  close(fd);
  return NULL;
}

static int serve_http(int port) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listener, (struct sockaddr*)&addr, sizeof(addr)) != 0 || listen(listener, 128) != 0) {
    perror("null_responder: cannot listen");
    return 1;
  }
  fprintf(stderr, "listening on http://127.0.0.1:%d/mcp\n", port);
  for (;;) {
    int fd = accept(listener, NULL, NULL);
    if (fd < 0) continue;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    pthread_t thread;
    pthread_create(&thread, NULL, serve_connection, (void*)(intptr_t)fd);
    pthread_detach(thread);
  }
}

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc > 1 && strcmp(argv[1], "--poll") == 0) {
    g_poll = 1;
    --argc;
    ++argv;
  }
  if (argc == 3 && strcmp(argv[1], "--http") == 0) return serve_http(atoi(argv[2]));
  return serve_stdio();
}
