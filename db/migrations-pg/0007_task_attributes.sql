-- A task's own fields from its source (a fork's ques_group, lang…): analytics split views by them.
ALTER TABLE "tasks" ADD COLUMN "attributes" json;
