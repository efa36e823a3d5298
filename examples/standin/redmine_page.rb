# Stand-in for a Redmine page until the http kind lands: builds records as hashes of Redmine's
# sizes (Issue: 23 fields, User: 17) and renders them to HTML, like one request would, for about
# a second; prints pages/s.
# Usage: ruby redmine_page.rb issues|issue
page = ARGV[0] || "issues"
ISSUE_FIELDS = (1..23).map { |i| :"issue_field_#{i}" }
USER_FIELDS = (1..17).map { |i| :"user_field_#{i}" }

def record(fields, id)
  fields.each_with_index.to_h { |f, i| [f, "#{f}-#{id}-#{i}"] }
end

def render(page)
  issues = page == "issues" ? 25 : 1
  users = page == "issues" ? 25 : 6
  rows = Array.new(issues) { |i| record(ISSUE_FIELDS, i) }
  people = Array.new(users) { |i| record(USER_FIELDS, i) }
  html = +"<table>"
  rows.each_with_index do |r, i|
    u = people[i % people.size]
    html << "<tr>" << r.values_at(*ISSUE_FIELDS.first(8)).map { |v| "<td>#{v}</td>" }.join
    html << "<td>#{u[:user_field_1]} #{u[:user_field_2]}</td></tr>"
  end
  html << "</table>"
end

count = 0
start = Process.clock_gettime(Process::CLOCK_MONOTONIC)
elapsed = 0.0
while elapsed < 1.0
  render(page)
  count += 1
  elapsed = Process.clock_gettime(Process::CLOCK_MONOTONIC) - start
end
puts "pages/s: #{format('%.2f', count / elapsed)}"
