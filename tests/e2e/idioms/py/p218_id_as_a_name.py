meta = {"name": "id_as_a_name", "description": "id names a ticket's id, a loop variable and a parameter, as the seed allows"}
tickets = args.get("tickets", [{"id": "T-1", "title": "crash"}, {"id": "T-2", "title": "typo"}])
seen = []
for t in tickets:
    id = t["id"]
    seen.append(id)

def label_for(id, title):
    return f"{id}: {title}"

labels = [label_for(t["id"], t["title"]) for t in tickets]
by_id = {ticket["id"]: ticket["title"] for ticket in tickets}
return {"ids": seen, "last": id, "labels": labels, "by_id": by_id}
