import { Migration } from "@medusajs/framework/mikro-orm/migrations";

export class Migration20261127030030 extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table if exists "fitroom_webhook_delivery" drop constraint if exists "fitroom_webhook_delivery_delivery_id_unique";`);
    this.addSql(`alter table if exists "fitroom_model" drop constraint if exists "fitroom_model_product_id_unique";`);
    this.addSql(`alter table if exists "fitroom_digital_twin" drop constraint if exists "fitroom_digital_twin_job_id_unique";`);
    this.addSql(`create table if not exists "fitroom_digital_twin" ("id" text not null, "customer_id" text null, "cart_id" text null, "status" text check ("status" in ('processing', 'ready', 'failed')) not null default 'processing', "job_id" text null, "digital_twin_id" text null, "mode" text not null, "error_code" text null, "error_message" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "fitroom_digital_twin_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_fitroom_digital_twin_deleted_at" ON "fitroom_digital_twin" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_fitroom_digital_twin_customer_id" ON "fitroom_digital_twin" ("customer_id") WHERE customer_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_fitroom_digital_twin_cart_id" ON "fitroom_digital_twin" ("cart_id") WHERE cart_id IS NOT NULL AND deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_fitroom_digital_twin_job_id_unique" ON "fitroom_digital_twin" ("job_id") WHERE job_id IS NOT NULL AND deleted_at IS NULL;`);

    this.addSql(`create table if not exists "fitroom_model" ("id" text not null, "product_id" text not null, "product_model_id" text not null, "glb_url" text null, "usdz_url" text null, "preview_url" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "fitroom_model_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_fitroom_model_deleted_at" ON "fitroom_model" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_fitroom_model_product_id_unique" ON "fitroom_model" ("product_id") WHERE deleted_at IS NULL;`);

    this.addSql(`create table if not exists "fitroom_webhook_delivery" ("id" text not null, "delivery_id" text not null, "event" text not null, "job_id" text null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "deleted_at" timestamptz null, constraint "fitroom_webhook_delivery_pkey" primary key ("id"));`);
    this.addSql(`CREATE INDEX IF NOT EXISTS "IDX_fitroom_webhook_delivery_deleted_at" ON "fitroom_webhook_delivery" ("deleted_at") WHERE deleted_at IS NULL;`);
    this.addSql(`CREATE UNIQUE INDEX IF NOT EXISTS "IDX_fitroom_webhook_delivery_delivery_id_unique" ON "fitroom_webhook_delivery" ("delivery_id") WHERE deleted_at IS NULL;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "fitroom_digital_twin" cascade;`);

    this.addSql(`drop table if exists "fitroom_model" cascade;`);

    this.addSql(`drop table if exists "fitroom_webhook_delivery" cascade;`);
  }

}
