// examples/whatif/kubectl.cpp - see kubectl.hpp.
//
// SPDX-License-Identifier: Apache-2.0
#include "kubectl.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

extern char** environ;

namespace whatif {

namespace {

// A pipe's two ends, closed when done with.
struct pipe_ends {
  int read = -1;
  int write = -1;
  ~pipe_ends() {
    if (read >= 0) ::close(read);
    if (write >= 0) ::close(write);
  }
};

// The first line of what kubectl wrote to its standard error, trimmed.
std::string first_line(std::FILE* f) {
  std::rewind(f);
  std::string line;
  for (int c = std::fgetc(f); c != EOF && c != '\n'; c = std::fgetc(f))
    line += static_cast<char>(c);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

std::string command_line(const std::vector<std::string>& args) {
  std::string c = "kubectl";
  for (const std::string& a : args) c += " " + a;
  return c;
}

}  // namespace

std::optional<load_error> read_kubectl(const std::vector<std::string>& args, std::uint64_t max_size,
                                       source& out) {
  const std::string command = command_line(args);
  out.name = command;
  std::FILE* errors = std::tmpfile();
  if (errors == nullptr)
    return load_error{command + ": cannot make a temporary file: " + std::strerror(errno)};
  struct closer {
    std::FILE* f;
    ~closer() { std::fclose(f); }
  } close_errors{errors};
  pipe_ends output;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return load_error{command + ": cannot make a pipe: " + std::strerror(errno)};
  output.read = fds[0];
  output.write = fds[1];

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, output.write, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, fileno(errors), STDERR_FILENO);
  std::vector<std::string> argv_strings;
  argv_strings.emplace_back("kubectl");
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = ::posix_spawnp(&pid, "kubectl", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0)
    return load_error{"cannot run kubectl: " + std::string(std::strerror(spawned)) +
                      " (the plugin reads the cluster with `" + command +
                      "`; give --cluster FILE to read a dump instead)"};
  ::close(output.write);
  output.write = -1;

  auto read_error = read_descriptor(output.read, command, max_size, out);
  ::close(output.read);  // a kubectl still writing (over the size limit) gets SIGPIPE
  output.read = -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (read_error) return read_error;
  if (!ok) {
    std::string m = "`" + command + "` failed (";
    m += WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                           : "signal " + std::to_string(WTERMSIG(status));
    m += ")";
    const std::string line = first_line(errors);
    if (!line.empty()) m += ": " + line;
    return load_error{std::move(m)};
  }
  return std::nullopt;
}

bool invoked_as_kubectl_plugin(std::string_view argv0) {
  constexpr std::string_view name = "kubectl-preempt_whatif";
  const std::size_t slash = argv0.find_last_of('/');
  const std::string_view base = slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1);
  return base == name;
}

}  // namespace whatif
